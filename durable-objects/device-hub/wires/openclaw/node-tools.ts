import {
  CATEGORY_TIMEOUTS,
  ContentBlock,
  type ErrorType,
  type ParameterSchema,
  type SkillManifest,
  type ToolManifest,
  type ToolOutcome,
} from "@edgeloop/protocol";
import type { NodeInvokeResultParams, NodePluginTool } from "./gateway-frames.js";

/**
 * What an OpenClaw node's commands become in edgeloop (docs/openclaw-nodes.md#what-maps-to-what):
 * each command it advertises that edgeloop knows how to drive is one tool, and each tool it
 * publishes (node-hosted MCP servers) is one more, run through `mcp.tools.call.v1`. A tool's
 * `binary` records the node command it runs, so the hub needs nothing else to build the invoke.
 * Pure: no I/O.
 */

export const SKILL_NAME = "openclaw-node";
const MCP_COMMAND = "mcp.tools.call.v1";
const TIMEOUT_PARAM: ParameterSchema = {
  type: "integer",
  description: "How long the node may run it, in milliseconds (up to the tool's limit).",
  minimum: 1,
};

const exec = CATEGORY_TIMEOUTS.exec;
const other = CATEGORY_TIMEOUTS.other;

/** The commands edgeloop offers as tools, by the node command they run. */
const KNOWN: Record<string, Omit<ToolManifest, "binary" | "permissions" | "sandboxing" | "requires">> = {
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

const manifestTool = (t: Omit<ToolManifest, "binary" | "permissions" | "sandboxing" | "requires">, binary: string) =>
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

/** The node's tools: its known commands, then the MCP tools it published (when it may run them). */
export function skillsFor(commands: readonly string[], published: readonly NodePluginTool[] = []): SkillManifest[] {
  const tools: ToolManifest[] = [];
  for (const command of commands) {
    const known = KNOWN[command];
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
): NodeInvoke | null {
  if (!tool) return null;
  if (tool.binary.startsWith(`${MCP_COMMAND}#`)) {
    const [, server, mcpTool] = tool.binary.split("#");
    return { command: MCP_COMMAND, params: { server, tool: mcpTool, arguments: parameters } };
  }
  if (tool.binary === "system.run") {
    const { timeout_ms: _t, ...rest } = parameters;
    return { command: "system.run", params: { ...rest, timeoutMs } };
  }
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

function payloadOf(r: NodeInvokeResultParams): unknown {
  if (r.payload !== undefined) return r.payload;
  if (typeof r.payloadJSON !== "string") return null;
  try {
    return JSON.parse(r.payloadJSON);
  } catch {
    return r.payloadJSON;
  }
}

export type Timing = { timeoutMs: number; elapsedMs: number };

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

/** A node's `node.invoke.result` as the tool call's outcome. */
export function outcomeOf(tool: string, command: string, result: NodeInvokeResultParams, timing: Timing): ToolOutcome {
  if (!result.ok) {
    const code = result.error?.code;
    const message = result.error?.message ?? "the node reported an error";
    return { status: "error", tool, error: code ? `${code}: ${message}` : message, error_type: errorTypeOf(code) };
  }
  const payload = payloadOf(result);
  if (command === "system.run" && payload && typeof payload === "object")
    return runOutcome(tool, payload as RunPayload, timing);
  if (command === MCP_COMMAND && payload && typeof payload === "object")
    return mcpOutcome(tool, payload as { content?: unknown; isError?: boolean }, timing.elapsedMs);
  const text = typeof payload === "string" ? payload : JSON.stringify(payload ?? null);
  return { status: "success", tool, result: text, stderr: "", exit_code: 0, elapsed_ms: timing.elapsedMs };
}
