import {
  CATEGORY_TIMEOUTS,
  ContentBlock,
  type ErrorType,
  MAX_WORKFLOW_CHARS,
  type ParameterSchema,
  type SkillManifest,
  type ToolManifest,
  type ToolOutcome,
} from "@edgeloop/protocol";
import { computerHint, controlOutcome, controlParams, type InvokeContext } from "./control-results.js";
import type { NodeInvokeResultParams, NodePluginTool, NodeSkill } from "./gateway-frames.js";
import { commandTool, type KnownTool } from "./node-command-tools.js";

/**
 * What an OpenClaw node's commands become in edgeloop (docs/openclaw-nodes.md#what-maps-to-what):
 * each command it advertises that edgeloop knows how to drive is one tool (node-command-tools.ts),
 * each tool it publishes (node-hosted MCP servers) one more, run through `mcp.tools.call.v1`, and
 * each skill it publishes (SKILL.md) a skill. A tool's `binary` records the node command it runs,
 * so the hub needs nothing else to build the invoke. Results read back here too. Pure: no I/O.
 */

export const SKILL_NAME = "openclaw-node";
const MCP_COMMAND = "mcp.tools.call.v1";

const manifestTool = (t: KnownTool, binary: string) =>
  ({ ...t, binary, permissions: [], sandboxing: "none", requires: [] }) satisfies ToolManifest;

/** Parameters as a node publishes them (JSON Schema), kept to the subset edgeloop validates. */
function parametersOf(raw: Record<string, unknown> | undefined): ToolManifest["parameters"] {
  const props = raw?.properties;
  const properties: Record<string, ParameterSchema> = {};
  if (props && typeof props === "object") {
    for (const [name, schema] of Object.entries(props as Record<string, unknown>)) {
      const s = schema as { type?: unknown; description?: unknown };
      const type = ["string", "integer", "number", "boolean", "array", "object"].includes(String(s?.type))
        ? (s.type as ParameterSchema["type"])
        : "string";
      properties[name] = {
        type,
        ...(typeof s?.description === "string" ? { description: s.description.slice(0, 1024) } : {}),
        ...(type === "array" ? { items: { type: "string" } as ParameterSchema } : {}),
      };
    }
  }
  const required = Array.isArray(raw?.required) ? (raw.required as unknown[]).filter((r) => typeof r === "string") : [];
  return { type: "object", properties, required: required.filter((r) => r in properties) as string[] };
}

/**
 * A skill the node published, as a device's skill with no tools of its own: its SKILL.md is the
 * workflow the `skill` built-in loads, cut to what a workflow holds (a node's may be longer).
 */
function skillOf(s: NodeSkill): SkillManifest {
  const note = `\n\n[cut: this SKILL.md is ${s.content.length} characters; edgeloop keeps the first part]`;
  const workflow =
    s.content.length > MAX_WORKFLOW_CHARS ? s.content.slice(0, MAX_WORKFLOW_CHARS - note.length) + note : s.content;
  return { name: s.name, version: "1", description: s.description, workflow, tools: [] };
}

/**
 * The node's skills: one with its known commands, then the MCP tools it published (when it may
 * run them), and one per skill (SKILL.md) it published.
 */
export function skillsFor(
  commands: readonly string[],
  published: readonly NodePluginTool[] = [],
  nodeSkills: readonly NodeSkill[] = [],
): SkillManifest[] {
  // A published skill named like edgeloop's skill for the node's commands would hide it: left out.
  const fromSkills = nodeSkills.filter((s) => s.name !== SKILL_NAME).map(skillOf);
  return [...commandSkill(commands, published), ...fromSkills];
}

function commandSkill(commands: readonly string[], published: readonly NodePluginTool[]): SkillManifest[] {
  const tools: ToolManifest[] = [];
  for (const command of commands) {
    const known = commandTool(command);
    if (known) tools.push(manifestTool(known, command));
  }
  const taken = new Set(tools.map((t) => t.name));
  for (const p of published) {
    // A published tool runs through a command the node advertised; an MCP one through mcp.tools.call.v1.
    if (!p.mcp || (p.command ?? MCP_COMMAND) !== MCP_COMMAND || !commands.includes(MCP_COMMAND)) continue;
    if (taken.has(p.name)) continue;
    taken.add(p.name);
    tools.push(
      manifestTool(
        {
          name: p.name,
          description: p.description,
          category: "other",
          timeout_ms: CATEGORY_TIMEOUTS.web.timeout_ms,
          max_timeout_ms: CATEGORY_TIMEOUTS.web.max_timeout_ms,
          parameters: parametersOf(p.parameters),
        },
        `${MCP_COMMAND}#${p.mcp.server}#${p.mcp.tool}`,
      ),
    );
  }
  return tools.length ? [{ name: SKILL_NAME, version: "1", tools }] : [];
}

export type NodeInvoke = { command: string; params: Record<string, unknown> };

/** The node command and its params for one tool call; null for a tool the node does not have. */
export function invokeFor(
  tool: ToolManifest | undefined,
  parameters: Record<string, unknown>,
  timeoutMs: number,
  ctx: InvokeContext = {},
): NodeInvoke | null {
  if (!tool) return null;
  const control = controlParams(tool.binary, parameters, timeoutMs, ctx);
  if (control) return { command: tool.binary, params: control };
  if (tool.binary.startsWith(`${MCP_COMMAND}#`)) {
    const [, server, mcpTool] = tool.binary.split("#");
    return { command: MCP_COMMAND, params: { server, tool: mcpTool, arguments: parameters } };
  }
  if (tool.binary === "system.run") {
    const { timeout_ms: _t, ...rest } = parameters;
    return { command: "system.run", params: { ...rest, timeoutMs } };
  }
  // What OpenClaw's own gateway fills in for a snap (nodes-tool-media.ts): the node takes no defaults.
  if (tool.binary === "photos.latest")
    return { command: "photos.latest", params: { limit: 1, maxWidth: 1600, quality: 0.85, ...parameters } };
  if (tool.binary === "camera.snap")
    return {
      command: "camera.snap",
      params: { facing: "front", maxWidth: 1600, quality: 0.95, format: "jpg", ...parameters },
    };
  // A recording: OpenClaw's gateway defaults (nodes-tool-media.ts), mp4 the only format it takes.
  if (tool.binary === "camera.clip")
    return {
      command: "camera.clip",
      params: { facing: "front", durationMs: 3000, includeAudio: true, format: "mp4", ...parameters },
    };
  if (tool.binary === "screen.record")
    return {
      command: "screen.record",
      params: { durationMs: 10_000, screenIndex: 0, fps: 10, includeAudio: true, format: "mp4", ...parameters },
    };
  return { command: tool.binary, params: parameters };
}

/** How the node's error codes read as edgeloop's error types. */
function errorTypeOf(code: string | undefined): ErrorType {
  switch (code) {
    case "INVALID_REQUEST":
      return "invalid_params";
    case "SYSTEM_RUN_DENIED":
    case "PERMISSION_MISSING":
      return "permission_denied";
    // NODE_NOT_READY: the node refused before running anything.
    case "NODE_NOT_READY":
    case "UNAVAILABLE":
    case "MCP_SERVER_UNAVAILABLE":
      return "unavailable";
    default:
      return "execution_failed";
  }
}

type RunPayload = {
  exitCode?: number | null;
  timedOut?: boolean;
  success?: boolean;
  stdout?: string;
  stderr?: string;
  error?: string | null;
};

const tail = (text: string, n = 2000) => (text.length > n ? `…${text.slice(-n)}` : text);

export function payloadOf(r: NodeInvokeResultParams): unknown {
  if (r.payload !== undefined) return r.payload;
  if (typeof r.payloadJSON !== "string") return null;
  try {
    return JSON.parse(r.payloadJSON);
  } catch {
    return r.payloadJSON;
  }
}

export type Timing = { timeoutMs: number; elapsedMs: number };

/** What else a result may need: the call's arguments, and what the node printed as progress. */
export type ResultExtra = { args?: Record<string, unknown>; stdout?: string };

function runOutcome(tool: string, p: RunPayload, { timeoutMs, elapsedMs }: Timing): ToolOutcome {
  const stderr = p.stderr ?? "";
  if (p.timedOut)
    return {
      status: "error",
      tool,
      error: `the node killed the command after its ${timeoutMs}ms timeout`,
      error_type: "timeout",
      stderr,
      elapsed_ms: elapsedMs,
    };
  const code = typeof p.exitCode === "number" ? p.exitCode : null;
  if (p.success === false || (code !== null && code !== 0) || code === null) {
    const why = code === null ? (p.error ?? "the command did not start") : `exited with code ${code}`;
    return {
      status: "error",
      tool,
      error: stderr.trim() ? `${why}: ${tail(stderr.trim())}` : why,
      error_type: "execution_failed",
      stderr,
      elapsed_ms: elapsedMs,
      ...(code !== null ? { exit_code: code } : {}),
    };
  }
  return { status: "success", tool, result: p.stdout ?? "", stderr, exit_code: 0, elapsed_ms: elapsedMs };
}

function mcpOutcome(tool: string, p: { content?: unknown; isError?: boolean }, elapsedMs: number): ToolOutcome {
  // Blocks edgeloop cannot show the model (audio, resources) are left out.
  const blocks = (Array.isArray(p.content) ? p.content : [])
    .map((b) => ContentBlock.safeParse(b))
    .flatMap((r) => (r.success ? [r.data] : []));
  const text = blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
  if (p.isError) return { status: "error", tool, error: text || "the MCP tool failed", error_type: "execution_failed" };
  const images = blocks.some((b) => b.type === "image");
  const common = { status: "success" as const, tool, result: text, stderr: "", exit_code: 0, elapsed_ms: elapsedMs };
  return images ? { ...common, content: blocks } : common;
}

/** Commands whose payload is pictures: `{format, base64, width, height}`, or a list of them. */
const PICTURE_COMMANDS = new Set(["camera.snap", "screen.snapshot", "photos.latest"]);

/** One picture as the model's blocks: a line saying what it is, then the image; null if unreadable. */
export function pictureBlocks(p: Record<string, unknown>): ContentBlock[] | null {
  const format = String(p.format ?? "").toLowerCase();
  const mimeType = format === "png" ? "image/png" : format === "jpg" || format === "jpeg" ? "image/jpeg" : null;
  // A node may answer with a URL on itself instead of the bytes: edgeloop cannot fetch it.
  if (!mimeType || typeof p.base64 !== "string" || !p.base64) return null;
  const size = typeof p.width === "number" && typeof p.height === "number" ? ` ${p.width}x${p.height}` : "";
  const when = typeof p.createdAt === "string" ? `, taken ${p.createdAt}` : "";
  // A Computer Use screenshot: its frame is what computer_act's coordinates refer to.
  const frame =
    typeof p.displayFrameId === "string" && p.displayFrameId
      ? ` For computer_act: displayFrameId ${JSON.stringify(p.displayFrameId)}` +
        (typeof p.width === "number" ? `, refWidth ${p.width}` : "") +
        (typeof p.screenIndex === "number" ? `, screenIndex ${p.screenIndex}` : "") +
        "."
      : "";
  return [
    { type: "text", text: `Picture from the node (${format}${size}${when}).${frame}` },
    { type: "image", data: p.base64, mimeType },
  ];
}

/** `camera.snap` and `screen.snapshot` answer one picture; `photos.latest` `{photos: [...]}`. */
function pictureOutcome(tool: string, command: string, p: Record<string, unknown>, elapsedMs: number): ToolOutcome {
  const pictures = command === "photos.latest" ? (Array.isArray(p.photos) ? p.photos : []) : [p];
  const blocks = pictures.map((x) => (x && typeof x === "object" ? pictureBlocks(x as Record<string, unknown>) : null));
  if (blocks.some((b) => b === null))
    return {
      status: "error",
      tool,
      error: "the node returned a picture edgeloop cannot read (no image bytes)",
      error_type: "execution_failed",
    };
  const content = blocks.flatMap((b) => b ?? []);
  const text = content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n") || "No photos found.";
  const common = { status: "success" as const, tool, result: text, stderr: "", exit_code: 0, elapsed_ms: elapsedMs };
  return content.length ? { ...common, content } : common;
}

/** A node's `node.invoke.result` as the tool call's outcome. */
export function outcomeOf(
  tool: string,
  command: string,
  result: NodeInvokeResultParams,
  timing: Timing,
  extra: ResultExtra = {},
): ToolOutcome {
  if (!result.ok) {
    const code = result.error?.code;
    const hint = command === "computer.act" && code === "INVALID_REQUEST" ? computerHint(extra.args?.action) : "";
    const message = (result.error?.message ?? "the node reported an error") + hint;
    return { status: "error", tool, error: code ? `${code}: ${message}` : message, error_type: errorTypeOf(code) };
  }
  const payload = payloadOf(result);
  const control = controlOutcome(tool, command, payload, timing.elapsedMs, extra.stdout);
  if (control) return control;
  if (command === "system.run" && payload && typeof payload === "object")
    return runOutcome(tool, payload as RunPayload, timing);
  if (command === MCP_COMMAND && payload && typeof payload === "object")
    return mcpOutcome(tool, payload as { content?: unknown; isError?: boolean }, timing.elapsedMs);
  if (PICTURE_COMMANDS.has(command) && payload && typeof payload === "object")
    return pictureOutcome(tool, command, payload as Record<string, unknown>, timing.elapsedMs);
  const text = typeof payload === "string" ? payload : JSON.stringify(payload ?? null);
  return { status: "success", tool, result: text, stderr: "", exit_code: 0, elapsed_ms: timing.elapsedMs };
}
