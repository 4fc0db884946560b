/**
 * The EvoClaw MQTT contract: topics and payloads, shared by the agent's MQTT transport
 * and the bridge. Payloads from the field are untrusted, so everything that comes in is parsed
 * here with zod and turned into values; nothing in this file throws on bad input.
 */
import { z } from "zod";
import { ContentBlock } from "./content-blocks.js";
import { HelloFrame, type ToolOutcome } from "./device-frames.js";
import { ErrorType } from "./error-types.js";
import { Identifier, ToolName } from "./ids.js";
import { Traceparent } from "./trace-context.js";

export const agentTopics = (agentId: string) => ({
  commands: `evoclaw/agents/${agentId}/commands`,
  reports: `evoclaw/agents/${agentId}/reports`,
  status: `evoclaw/agents/${agentId}/status`,
  capabilities: `evoclaw/agents/${agentId}/capabilities`,
});
export const bridgeStatusTopic = (bridgeId: string) => `evoclaw/bridges/${bridgeId}/status`;

export type AgentTopicKind = "commands" | "reports" | "status" | "capabilities";
const TOPIC = /^evoclaw\/agents\/([^/]+)\/(commands|reports|status|capabilities)$/;

/** `evoclaw/agents/{id}/{kind}` → its parts; null for anything else or an id we could not use. */
export function parseAgentTopic(topic: string): { agentId: string; kind: AgentTopicKind } | null {
  const m = TOPIC.exec(topic);
  if (!m || !Identifier.safeParse(m[1]).success) return null;
  return { agentId: m[1]!, kind: m[2] as AgentTopicKind };
}

// ---- commands (orchestrator → device), EvoClaw's exact shape: no `type` field ----------------

export const MqttToolCommand = z.object({
  command: z.literal("tool"),
  payload: z.object({
    tool: ToolName,
    parameters: z.record(z.string(), z.unknown()),
    timeout_ms: z.number().int().positive(),
    request_id: Identifier,
    traceparent: Traceparent.optional().catch(undefined),
  }),
  request_id: Identifier,
});
export type MqttToolCommand = z.infer<typeof MqttToolCommand>;

/**
 * EvoClaw's edge agent parses every command into `{command: string, payload: any JSON, request_id:
 * string}`, all three required: one without `payload` is dropped without a report. So every command
 * carries a `payload`, `{}` where there is nothing to say, and a `request_id`.
 */
const NoPayload = z.record(z.string(), z.unknown());

export const MqttCommand = z.discriminatedUnion("command", [
  MqttToolCommand,
  /** only to our agent: EvoClaw's has no cancel and would answer it with an error report */
  z.object({ command: z.literal("cancel"), payload: NoPayload, request_id: Identifier }),
  z.object({ command: z.literal("ping"), payload: NoPayload, request_id: Identifier }),
  z.object({ command: z.literal("tools_list"), payload: NoPayload, request_id: Identifier }),
]);
export type MqttCommand = z.infer<typeof MqttCommand>;

/** A command with nothing to say beyond its name and id, in the shape every EvoClaw agent parses. */
export function controlCommand(command: "cancel" | "ping" | "tools_list", requestId: string): MqttCommand {
  return { command, payload: {}, request_id: requestId };
}

// ---- reports (device → orchestrator) ---------------------------------------------------------

/** Field agents are loose about types: a number where a string is expected is still a result. */
const text = z.union([z.string(), z.number(), z.boolean(), z.null()]).transform((v) => (v === null ? "" : String(v)));
/** Required (a missing key is an error), but any JSON value is accepted and made text. */
const anyText = z
  .unknown()
  .transform((v) => (typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v)));
/** An error type we do not know (or none at all) is still an error: `execution_failed`. */
const errorType = z
  .unknown()
  .optional()
  .transform((v) => {
    const known = ErrorType.safeParse(v);
    return known.success ? known.data : "execution_failed";
  });
const optionalId = Identifier.optional().catch(undefined);
const elapsed = z.number().nonnegative().optional().catch(undefined);

/** EvoClaw's flat reports (our agent adds `request_id`); also the envelope's `result` payload. */
export const FlatSuccessReport = z.object({
  status: z.literal("success"),
  tool: ToolName.optional(),
  result: anyText,
  stderr: text.optional(),
  exit_code: z.number().int().optional().catch(undefined),
  elapsed_ms: elapsed,
  request_id: optionalId,
  content: z.array(ContentBlock).optional().catch(undefined),
  truncated: z.boolean().optional().catch(undefined),
  bytes_total: z.number().int().nonnegative().optional().catch(undefined),
  bytes_returned: z.number().int().nonnegative().optional().catch(undefined),
});
export const FlatErrorReport = z.object({
  status: z.literal("error"),
  tool: ToolName.optional(),
  error: anyText,
  error_type: errorType,
  elapsed_ms: elapsed,
  stderr: text.optional(),
  exit_code: z.number().int().optional().catch(undefined),
  request_id: optionalId,
});
export const FlatReport = z.discriminatedUnion("status", [FlatSuccessReport, FlatErrorReport]);
export type FlatReport = z.infer<typeof FlatReport>;

/** The EvoClaw edge agent's envelope; `timestamp` is unix seconds. */
export const ReportEnvelope = z.object({
  agent_id: z.string().optional(),
  agent_type: z.string().optional(),
  report_type: z.string(),
  payload: z.unknown(),
  timestamp: z.number().optional(),
});
export type ReportEnvelope = z.infer<typeof ReportEnvelope>;

/** `report_type: "error"`: a command the agent could not handle at all. */
const EnvelopeError = z.object({
  error: anyText.optional(),
  request_id: optionalId,
  tool: ToolName.optional().catch(undefined),
});

/** The answer to `tools_list`. Parameters are checked later, when the manifest is built. */
export const ToolsListAnswer = z.object({
  tools: z.array(
    z.object({ name: z.string(), description: z.string().optional().catch(undefined), parameters: z.unknown() }),
  ),
  count: z.number().optional(),
  request_id: optionalId,
});
export type ToolsListAnswer = z.infer<typeof ToolsListAnswer>;

/** A tool outcome as a report gives it: the tool may be missing (the command says which it was). */
export type ReportOutcome = ToolOutcome extends infer T
  ? T extends unknown
    ? Omit<T, "tool"> & { tool?: string }
    : never
  : never;

export type InterpretedReport =
  | { kind: "tool"; requestId?: string; tool?: string; outcome: ReportOutcome; shape: "flat" | "envelope" }
  | { kind: "tools"; answer: ToolsListAnswer }
  | { kind: "heartbeat"; payload: unknown }
  | { kind: "pong" }
  | { kind: "other"; reportType: string }
  | { kind: "invalid"; error: string };

function outcomeOf(report: FlatReport): ReportOutcome {
  if (report.status === "success") {
    const { request_id: _r, ...rest } = report;
    if (rest.content === undefined) delete rest.content;
    return {
      ...rest,
      stderr: rest.stderr ?? "",
      exit_code: rest.exit_code ?? 0,
      elapsed_ms: rest.elapsed_ms ?? 0,
    } as ReportOutcome;
  }
  const { request_id: _r, ...rest } = report;
  return rest as ReportOutcome;
}

function issue(e: z.ZodError): string {
  const i = e.issues[0]!;
  return `${i.path.length ? `${i.path.join(".")}: ` : ""}${i.message}`;
}

/**
 * Any message on `…/reports`, in either shape found in the field, as one value. A failed tool in
 * the envelope comes as `report_type:"result"` with `status:"error"` and usually no `error_type`.
 */
export function interpretReport(raw: unknown): InterpretedReport {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    return { kind: "invalid", error: "not a JSON object" };
  const obj = raw as Record<string, unknown>;
  if ("report_type" in obj) {
    const env = ReportEnvelope.safeParse(obj);
    if (!env.success) return { kind: "invalid", error: `envelope: ${issue(env.error)}` };
    const { report_type: type, payload } = env.data;
    if (type === "heartbeat") return { kind: "heartbeat", payload };
    if (type === "result" || type === "error") {
      const p = (typeof payload === "object" && payload !== null ? payload : {}) as Record<string, unknown>;
      if (p.pong === true) return { kind: "pong" };
      if (Array.isArray(p.tools)) {
        const tools = ToolsListAnswer.safeParse(p);
        return tools.success
          ? { kind: "tools", answer: tools.data }
          : { kind: "invalid", error: `tools_list answer: ${issue(tools.error)}` };
      }
      if (type === "error" && !("status" in p)) {
        const e = EnvelopeError.safeParse(p);
        if (!e.success) return { kind: "invalid", error: `error payload: ${issue(e.error)}` };
        return {
          kind: "tool",
          requestId: e.data.request_id,
          tool: e.data.tool,
          shape: "envelope",
          outcome: {
            status: "error",
            tool: e.data.tool,
            error: e.data.error ?? "the device could not handle the command",
            error_type: "execution_failed",
          },
        };
      }
      const flat = FlatReport.safeParse(p);
      if (!flat.success) return { kind: "invalid", error: `${type} payload: ${issue(flat.error)}` };
      return {
        kind: "tool",
        requestId: flat.data.request_id,
        tool: flat.data.tool,
        shape: "envelope",
        outcome: outcomeOf(flat.data),
      };
    }
    return { kind: "other", reportType: type };
  }
  if (obj.pong === true) return { kind: "pong" };
  if (Array.isArray(obj.tools)) {
    const tools = ToolsListAnswer.safeParse(obj);
    return tools.success
      ? { kind: "tools", answer: tools.data }
      : { kind: "invalid", error: `tools_list answer: ${issue(tools.error)}` };
  }
  const flat = FlatReport.safeParse(obj);
  if (!flat.success) return { kind: "invalid", error: issue(flat.error) };
  return {
    kind: "tool",
    requestId: flat.data.request_id,
    tool: flat.data.tool,
    shape: "flat",
    outcome: outcomeOf(flat.data),
  };
}

// ---- status and capabilities (retained) ------------------------------------------------------

/** `online`/`offline` as plain text, or JSON `{"status":"online",…}` as some agents publish it. */
export function parseStatus(payload: string): "online" | "offline" | null {
  const t = payload.trim();
  let value: unknown = t;
  if (t.startsWith("{") || t.startsWith('"')) {
    try {
      const j = JSON.parse(t) as unknown;
      value = typeof j === "object" && j !== null ? (j as Record<string, unknown>).status : j;
    } catch {
      return null;
    }
  }
  return value === "online" || value === "offline" ? value : null;
}

/** Our agent's retained capabilities: its hello frame, without `held` (stale the moment it is retained). */
export const CapabilitiesManifest = HelloFrame;
export type CapabilitiesManifest = z.infer<typeof HelloFrame>;

/** EvoClaw's edge agent advertises itself (retained) with a one-line summary, not a tool list. */
export const EvoClawCapabilities = z.object({ agent_id: z.string(), capabilities: z.string() });

/** Unix seconds, as the EvoClaw envelope carries them. */
export const unixSeconds = (ms = Date.now()) => Math.floor(ms / 1000);
