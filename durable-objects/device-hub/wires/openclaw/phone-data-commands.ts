import type { KnownTool } from "./node-command-tool.js";
import { tool } from "./node-command-tool.js";

/**
 * A phone's call log, its health summary and its Apple Watch, with the parameters the phone apps
 * decode (OpenClaw's apps/android CallLogHandler.kt; OpenClawKit's HealthCommands.swift and
 * WatchCommands.swift). Each answers JSON, which the model gets as text. Pure: data.
 */
export const PHONE_DATA_COMMANDS: Record<string, KnownTool> = {
  // The Android app clamps `limit` to 1..200 and matches names and numbers by substring, newest
  // first. Its `date` (an exact instant, kept only for old callers) is left out: `dateStart`/`dateEnd` replace it.
  "callLog.search": tool(
    "callLog.search",
    "Search the call log of the OpenClaw node, an Android phone, newest first: each call's number, " +
      "cached contact name, date (ms since 1970), duration (seconds) and type.",
    {
      cachedName: { type: "string", description: "part of the contact name" },
      number: { type: "string", description: "part of the phone number" },
      dateStart: { type: "integer", minimum: 0, description: "at or after, in ms since 1970" },
      dateEnd: { type: "integer", minimum: 0, description: "at or before, in ms since 1970" },
      duration: { type: "integer", minimum: 0, description: "calls of exactly this many seconds" },
      type: {
        type: "integer",
        minimum: 1,
        description: "Android's call type: 1 incoming, 2 outgoing, 3 missed, 4 voicemail, 5 rejected, 6 blocked",
      },
      limit: { type: "integer", minimum: 1, maximum: 200, description: "how many (default 25)" },
      offset: { type: "integer", minimum: 0, description: "skip this many" },
    },
  ),
  // The iOS app's only period is `today` (local midnight to now), and it needs it named.
  "health.summary": tool(
    "health.summary",
    "Today's health summary from the OpenClaw node (an iPhone's Apple Health, computed on the phone): " +
      "steps, sleep minutes, resting heart rate, workouts. A missing metric is unreadable, not zero.",
    { period: { type: "string", enum: ["today"], description: "the only period: today" } },
    ["period"],
  ),
  "watch.status": tool(
    "watch.status",
    "Whether the OpenClaw node (an iPhone) has an Apple Watch paired, with the OpenClaw app on it, reachable now.",
  ),
  // The iPhone decodes `title` and `body` as required (either may be empty, not both). Its
  // `promptId`, `sessionKey`, `gatewayStableID` and `actions` make a prompt whose quick replies go
  // back to an OpenClaw chat session as node events, which edgeloop does not take: left out.
  "watch.notify": tool(
    "watch.notify",
    "Show a notification on the Apple Watch paired with the OpenClaw node (an iPhone). The result says " +
      "whether it was delivered at once or queued, not that it was seen.",
    {
      title: { type: "string", description: "the title (may be empty if the body is not)" },
      body: { type: "string", description: "the text (may be empty if the title is not)" },
      priority: { type: "string", enum: ["passive", "active", "timeSensitive"], description: "default active" },
      kind: { type: "string", description: "a free-text label of what it is" },
      details: { type: "string", description: "extra detail text" },
      expiresAtMs: { type: "integer", minimum: 0, description: "when it stops mattering, in ms since 1970" },
      risk: { type: "string", enum: ["low", "medium", "high"], description: "a risk hint" },
    },
    ["title", "body"],
  ),
};

/** How OpenClaw compares a node's labels (device-metadata-normalization.ts): trimmed, accents dropped, lower case. */
const label = (v: string | undefined) => (v ?? "").trim().normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();

/**
 * Whether a node relays to an Apple Watch as OpenClaw's gateway decides it
 * (node-command-policy.ts: `watch.*` only for the platform `ios` with the device family `iphone`):
 * an iPhone, by its platform (`iOS`, `iOS 18.2`, `iPadOS 18`, or none) and its family `iPhone`.
 */
export function relaysToWatch(client: { platform?: string; deviceFamily?: string }): boolean {
  const platform = label(client.platform);
  if (label(client.deviceFamily) !== "iphone") return false;
  return platform === "" || platform === "ios" || /^(?:ios|ipados) \d+(?:\.\d+){0,2}$/.test(platform);
}

/** The commands a node advertised that edgeloop may offer: `watch.*` only from an iPhone. */
export function offeredCommands(commands: string[], client: { platform?: string; deviceFamily?: string }): string[] {
  return relaysToWatch(client) ? commands : commands.filter((c) => !c.startsWith("watch."));
}
