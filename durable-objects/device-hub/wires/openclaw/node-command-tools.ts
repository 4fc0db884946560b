import { CATEGORY_TIMEOUTS, type ParameterSchema } from "@edgeloop/protocol";
import { CONTROL_COMMANDS, CONTROL_DANGEROUS } from "./control-commands.js";
import { type KnownTool, tool } from "./node-command-tool.js";
import { PHONE_DATA_COMMANDS } from "./phone-data-commands.js";

export type { KnownTool } from "./node-command-tool.js";

/**
 * The node commands edgeloop offers as tools (docs/openclaw-nodes.md#what-maps-to-what), each with
 * the tool's name (the command, `.` → `_`), description, timeouts and parameters. Pure: data.
 */

const TIMEOUT_PARAM: ParameterSchema = {
  type: "integer",
  description: "How long the node may run it, in milliseconds (up to the tool's limit).",
  minimum: 1,
};

const exec = CATEGORY_TIMEOUTS.exec;
const other = CATEGORY_TIMEOUTS.other;

/** The commands edgeloop offers as tools, by the node command they run. */
const KNOWN: Record<string, KnownTool> = {
  "system.run": {
    name: "system_run",
    description:
      "Run a program on the OpenClaw node. `command` is the argv (program first, no shell unless you name one, " +
      'e.g. ["sh","-c","ls | wc -l"]); returns stdout, or an error with the exit code and stderr.',
    category: "exec",
    timeout_ms: exec.timeout_ms,
    max_timeout_ms: exec.max_timeout_ms,
    parameters: {
      type: "object",
      properties: {
        command: { type: "array", items: { type: "string" }, description: "argv: the program, then its arguments" },
        cwd: { type: "string", description: "working directory on the node" },
        env: { type: "object", description: "extra environment variables, name to value" },
        timeout_ms: TIMEOUT_PARAM,
      },
      required: ["command"],
    },
  },
  "system.which": {
    name: "system_which",
    description: "Find programs on the OpenClaw node's PATH: returns the path of each one found.",
    category: "other",
    timeout_ms: other.timeout_ms,
    max_timeout_ms: other.max_timeout_ms,
    parameters: {
      type: "object",
      properties: { bins: { type: "array", items: { type: "string" }, description: "program names" } },
      required: ["bins"],
    },
  },
};

/** OpenClaw's gateway caps a recording at 5 minutes (MAX_RECORDING_DURATION_MS). */
const MAX_RECORDING_MS = 300_000;

const PTZ_AXES: Record<string, ParameterSchema> = {
  panDegrees: { type: "number" },
  tiltDegrees: { type: "number" },
  zoomPercent: { type: "number" },
};

/** A recording's tool: its timeout covers the recording, with time to encode and send it. */
const clipTool = (command: string, description: string, properties: Record<string, ParameterSchema>): KnownTool => ({
  ...tool(command, description, properties),
  timeout_ms: 60_000,
  max_timeout_ms: MAX_RECORDING_MS + 60_000,
});

/**
 * Commands only phones and desktops run, with the parameters OpenClaw's own gateway sends them
 * (openclaw src/agents/tools/nodes-tool-media.ts, nodes-tool-commands.ts; screen.snapshot's
 * ScreenSnapshotParamsSchema). A picture comes back as `{format, base64, width, height}` and
 * reaches the model as an image block, through the conversation's image intake.
 */
const DEVICE_COMMANDS: Record<string, KnownTool> = {
  "camera.list": tool("camera.list", "List the cameras of the OpenClaw node (their ids, names and facing)."),
  "camera.snap": tool("camera.snap", "Take a photo with the OpenClaw node's camera; the picture is returned to you.", {
    facing: { type: "string", enum: ["front", "back"], description: "which camera (default front)" },
    maxWidth: { type: "integer", minimum: 1, description: "largest width in pixels (default 1600)" },
    quality: { type: "number", minimum: 0, maximum: 1, description: "JPEG quality, 0 to 1 (default 0.95)" },
    delayMs: { type: "integer", minimum: 0, description: "wait this long before taking it" },
    deviceId: { type: "string", description: "a camera id from camera_list" },
  }),
  "photos.latest": tool(
    "photos.latest",
    "Get the newest photos from the OpenClaw node's photo library; the pictures are returned to you.",
    {
      limit: { type: "integer", minimum: 1, maximum: 20, description: "how many (default 1)" },
      maxWidth: { type: "integer", minimum: 1, description: "largest width in pixels (default 1600)" },
      quality: { type: "number", minimum: 0, maximum: 1, description: "JPEG quality, 0 to 1 (default 0.85)" },
    },
  ),
  "screen.snapshot": tool(
    "screen.snapshot",
    "Take a screenshot of the OpenClaw node's screen; the picture is returned to you.",
    {
      screenIndex: { type: "integer", minimum: 0, description: "which screen (default 0)" },
      maxWidth: { type: "integer", minimum: 1, description: "largest width in pixels" },
      format: { type: "string", enum: ["jpeg", "png"], description: "picture format" },
    },
  ),
  "location.get": tool("location.get", "Get the OpenClaw node's location (latitude, longitude, accuracy).", {
    maxAgeMs: { type: "integer", minimum: 0, description: "accept a fix at most this old" },
    desiredAccuracy: { type: "string", enum: ["coarse", "balanced", "precise"] },
    timeoutMs: { type: "integer", minimum: 1, description: "how long the node may look for a fix" },
  }),
  "notifications.list": tool("notifications.list", "List the notifications showing on the OpenClaw node."),
  "notifications.actions": tool(
    "notifications.actions",
    "Open, dismiss or reply to a notification on the OpenClaw node (its key from notifications_list).",
    {
      key: { type: "string", description: "the notification's key" },
      action: { type: "string", enum: ["open", "dismiss", "reply"] },
      replyText: { type: "string", description: "the reply, for action reply" },
    },
    ["key", "action"],
  ),
  "system.notify": tool("system.notify", "Show a notification on the OpenClaw node (a title, a body, or both).", {
    title: { type: "string" },
    body: { type: "string" },
    sound: { type: "string", description: "a sound name the node knows" },
    priority: { type: "string", enum: ["passive", "active", "timeSensitive"] },
    delivery: { type: "string", enum: ["system", "overlay", "auto"] },
  }),
  // OpenClaw's FsListDirParamsSchema; the node lists subdirectories only.
  "fs.listDir": {
    name: "fs_listDir",
    description:
      "List the subdirectories of a directory on the OpenClaw node (absolute path; default its home directory).",
    category: "file",
    timeout_ms: CATEGORY_TIMEOUTS.file.timeout_ms,
    max_timeout_ms: CATEGORY_TIMEOUTS.file.max_timeout_ms,
    parameters: {
      type: "object",
      properties: { path: { type: "string", description: "an absolute directory path" } },
      required: [],
    },
  },
  // A clip comes back as `{format: "mp4", base64, durationMs, hasAudio}` (OpenClaw's
  // parseCameraClipPayload, parseScreenRecordPayload): the hub stores it and the model gets a link
  // and a poster (node-clips.ts). Parameters as OpenClaw's gateway sends them (nodes-tool-media.ts).
  "camera.clip": clipTool(
    "camera.clip",
    "Record a short video clip with the OpenClaw node's camera. The clip is stored and you get a link to it, " +
      "with a still taken by the same camera right after the clip ended (not a frame of the clip).",
    {
      facing: { type: "string", enum: ["front", "back"], description: "which camera (default front)" },
      durationMs: {
        type: "integer",
        minimum: 250,
        maximum: MAX_RECORDING_MS,
        description: "how long to record, in milliseconds (default 3000; the node may allow less, 60000 on phones)",
      },
      includeAudio: { type: "boolean", description: "record sound too (default true)" },
      deviceId: { type: "string", description: "a camera id from camera_list" },
    },
  ),
  "screen.record": clipTool(
    "screen.record",
    "Record the OpenClaw node's screen as a video clip. The clip is stored and you get a link to it, " +
      "with a screenshot taken right after the recording ended (not a frame of the clip).",
    {
      durationMs: {
        type: "integer",
        minimum: 1,
        maximum: MAX_RECORDING_MS,
        description: "how long to record, in milliseconds (default 10000)",
      },
      screenIndex: { type: "integer", minimum: 0, description: "which screen (default 0, the primary)" },
      fps: { type: "number", minimum: 1, maximum: 60, description: "frames per second (default 10)" },
      includeAudio: { type: "boolean", description: "record the microphone too (default true)" },
    },
  ),
  // OpenClaw's canvas plugin (extensions/canvas: CanvasToolSchema, src/tool.ts): a macOS node's widget panel.
  "canvas.present": tool("canvas.present", "Show the OpenClaw node's widget panel (macOS), optionally at a URL.", {
    url: { type: "string", description: "a hosted widget-document path or an app-local Canvas URL" },
    placement: {
      type: "object",
      description: "where the panel goes, in screen points",
      properties: {
        x: { type: "number" },
        y: { type: "number" },
        width: { type: "number" },
        height: { type: "number" },
      },
    },
  }),
  "canvas.hide": tool("canvas.hide", "Hide the OpenClaw node's widget panel (macOS)."),
  "canvas.navigate": tool(
    "canvas.navigate",
    "Point the OpenClaw node's widget panel (macOS) at a hosted widget-document path or an app-local Canvas URL.",
    { url: { type: "string", description: "the path or URL" } },
    ["url"],
  ),
  // An Android phone with telephony and the SMS permission (OpenClaw's apps/android SmsManager.kt).
  "sms.send": tool(
    "sms.send",
    "Send a text message (SMS) from the OpenClaw node, an Android phone.",
    {
      to: { type: "string", description: "the phone number" },
      message: { type: "string", description: "the text" },
    },
    ["to", "message"],
  ),
  "sms.search": tool("sms.search", "Search the text messages (SMS) on the OpenClaw node, an Android phone.", {
    keyword: { type: "string", description: "words in the message" },
    phoneNumber: { type: "string", description: "the other side's number (partial matches)" },
    contactName: { type: "string", description: "the other side's contact name" },
    startTime: { type: "integer", minimum: 0, description: "sent at or after, in ms since 1970" },
    endTime: { type: "integer", minimum: 0, description: "sent at or before, in ms since 1970" },
    type: { type: "integer", minimum: 0, description: "Android's SMS type: 1 inbox, 2 sent, 3 draft" },
    isRead: { type: "boolean", description: "read or unread only" },
    limit: { type: "integer", minimum: 1, maximum: 200, description: "how many (default 25)" },
    offset: { type: "integer", minimum: 0, description: "skip this many" },
  }),
  // A phone's personal data (OpenClaw's apps/android ContactsHandler.kt, CalendarHandler.kt,
  // MotionHandler.kt; the iOS app's, OpenClawKit's *Commands.swift): the node answers JSON.
  "contacts.search": tool("contacts.search", "Search the contacts on the OpenClaw node (a phone).", {
    query: { type: "string", description: "part of the contact's name (none: every contact)" },
    limit: { type: "integer", minimum: 1, maximum: 200, description: "how many (default 25)" },
  }),
  "contacts.add": tool(
    "contacts.add",
    "Add a contact on the OpenClaw node (a phone): a name, an organization, a phone number or an email at least.",
    {
      givenName: { type: "string" },
      familyName: { type: "string" },
      displayName: { type: "string" },
      organizationName: { type: "string" },
      phoneNumbers: { type: "array", items: { type: "string" } },
      emails: { type: "array", items: { type: "string" } },
    },
  ),
  "calendar.events": tool("calendar.events", "List the calendar events on the OpenClaw node (a phone) in a window.", {
    startISO: { type: "string", description: "from, an ISO-8601 instant in UTC (default now)" },
    endISO: { type: "string", description: "to, an ISO-8601 instant in UTC (default a week after the start)" },
    limit: { type: "integer", minimum: 1, maximum: 500, description: "how many (default 50)" },
  }),
  "calendar.add": tool(
    "calendar.add",
    "Add an event to a calendar on the OpenClaw node (a phone).",
    {
      title: { type: "string" },
      startISO: { type: "string", description: "an ISO-8601 instant in UTC" },
      endISO: { type: "string", description: "an ISO-8601 instant in UTC, after the start" },
      isAllDay: { type: "boolean" },
      location: { type: "string" },
      notes: { type: "string" },
      // A string: iOS decodes it as one (OpenClawKit's CalendarCommands.swift); Android reads either.
      calendarId: { type: "string", description: "the calendar's id (default the primary calendar)" },
      calendarTitle: { type: "string", description: "the calendar's exact name" },
    },
    ["title", "startISO", "endISO"],
  ),
  // OpenClawKit's RemindersCommands.swift (the iOS app).
  "reminders.list": tool("reminders.list", "List the reminders on the OpenClaw node (an iPhone).", {
    status: { type: "string", enum: ["incomplete", "completed", "all"] },
    limit: { type: "integer", minimum: 1 },
  }),
  "reminders.add": tool(
    "reminders.add",
    "Add a reminder on the OpenClaw node (an iPhone).",
    {
      title: { type: "string" },
      dueISO: { type: "string", description: "when it is due, an ISO-8601 instant" },
      notes: { type: "string" },
      listId: { type: "string", description: "the list's id" },
      listName: { type: "string", description: "the list's name" },
    },
    ["title"],
  ),
  "motion.activity": tool("motion.activity", "What the OpenClaw node (a phone) is doing: still, walking, running.", {
    startISO: { type: "string", description: "from (iOS only; Android reads the present)" },
    endISO: { type: "string", description: "to (iOS only)" },
    limit: { type: "integer", minimum: 1, maximum: 1000 },
  }),
  "motion.pedometer": tool("motion.pedometer", "The OpenClaw node's step count (a phone).", {
    startISO: { type: "string", description: "from (iOS only; Android counts since boot)" },
    endISO: { type: "string", description: "to (iOS only)" },
  }),
  // OpenClaw's node host (src/node-host/invoke-device-apps.ts, DeviceAppsParamsSchema), when its owner shares them.
  "device.apps": tool("device.apps", "List the apps installed on the OpenClaw node.", {
    query: { type: "string", description: "part of the app's name" },
    limit: { type: "integer", minimum: 1, maximum: 200, description: "how many (default 100)" },
    includeSystem: { type: "boolean", description: "system apps too" },
  }),
  // A Mac's USB camera that pans, tilts and zooms (OpenClaw's docs/nodes/camera.md, "macOS physical PTZ").
  "camera.ptz.status": tool(
    "camera.ptz.status",
    "Read where a pan-tilt-zoom camera of the OpenClaw node points, without moving it.",
    { deviceId: { type: "string", description: "a camera id from camera_list" } },
    ["deviceId"],
  ),
  "camera.ptz.control": tool(
    "camera.ptz.control",
    "Move a pan-tilt-zoom camera of the OpenClaw node: set a position, move by a delta, or go home.",
    {
      deviceId: { type: "string", description: "a camera id from camera_list" },
      operation: { type: "string", enum: ["set", "move", "home"] },
      target: { type: "object", description: "for set", properties: PTZ_AXES },
      delta: { type: "object", description: "for move", properties: PTZ_AXES },
    },
    ["deviceId", "operation"],
  ),
  "device.info": tool("device.info", "The OpenClaw node's device: model, system, app version."),
  "device.status": tool("device.status", "The OpenClaw node's state: battery, storage, network."),
  "device.permissions": tool("device.permissions", "Which permissions the OpenClaw node's app holds."),
  "device.health": tool("device.health", "The OpenClaw node's health report."),
};

/**
 * Never offered, whatever a node advertises: its own exec-approval policy (a model must not
 * loosen what the node lets it run) and OpenClaw's private worker controls.
 */
export function neverOffered(command: string): boolean {
  return command.startsWith("system.execApprovals.") || /^worker\..*\.v1$/.test(command);
}

/**
 * The commands OpenClaw's own gateway treats as dangerous (node-command-policy.ts,
 * DEFAULT_DANGEROUS_NODE_COMMANDS: it refuses them until its operator allows each one), of those
 * edgeloop offers: their tools wait for a person's approval unless `TOOL_POLICIES` says otherwise
 * (docs/openclaw-nodes.md#approvals).
 */
const DANGEROUS = new Set([
  "camera.snap",
  "camera.clip",
  "camera.ptz.control",
  "screen.record",
  "contacts.add",
  "calendar.add",
  "reminders.add",
  "sms.send",
  "sms.search",
  "health.summary",
  ...CONTROL_DANGEROUS,
]);

/** The tool for a command the node advertised, if edgeloop offers one. */
export function commandTool(command: string): KnownTool | undefined {
  if (neverOffered(command)) return undefined;
  const known = Object.hasOwn(KNOWN, command)
    ? KNOWN[command]
    : Object.hasOwn(DEVICE_COMMANDS, command)
      ? DEVICE_COMMANDS[command]
      : Object.hasOwn(PHONE_DATA_COMMANDS, command)
        ? PHONE_DATA_COMMANDS[command]
        : Object.hasOwn(CONTROL_COMMANDS, command)
          ? CONTROL_COMMANDS[command]
          : undefined;
  return known && DANGEROUS.has(command) ? { ...known, policy: "requires_approval" } : known;
}
