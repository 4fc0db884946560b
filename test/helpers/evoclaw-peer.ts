/**
 * An EvoClaw edge agent on MQTT, for the bridge's end-to-end tests, written after its Rust code
 * (clawinfra/evoclaw, edge-agent/src/mqtt.rs, agent.rs, commands.rs, tools.rs) rather than after
 * our bridge, so it is as strict as the real one:
 * - client id `evoclaw-<id>`, a clean session, no last-will and no `…/status` topic; after a
 *   reconnect (a broker restart) it does not subscribe again (the real one subscribes once, at
 *   start), so it keeps sending heartbeats and hears no command;
 * - rumqttc's default packet limit, 10 KiB in and out (`MqttOptions::new`): a command or a report
 *   over it drops the connection (the report is not sent), and it comes back deaf the same way;
 * - subscribes to `…/commands`, `evoclaw/broadcast` and `…/strategy`; advertises
 *   `{"agent_id","capabilities":"<one line>"}` retained on `…/capabilities`; reports a heartbeat
 *   at start and then every `heartbeatMs` (30 s there);
 * - parses every message into `{command: string, payload: any JSON, request_id: string}`; one that
 *   lacks a field or has the wrong type is dropped without a report (recorded here in `rejected`);
 * - handles one command at a time, in order; answers in its envelope
 *   `{agent_id, agent_type, report_type, payload, timestamp}`: `ping` → result `{"pong":true}`,
 *   `tools_list` → result `{tools, count, request_id}`, `tool` → result `{status, tool, result |
 *   error, elapsed_ms, request_id}` (`Unknown tool: x` for a tool it lacks, `missing tool name`
 *   as an error report), anything else → error `{"error":"unknown command: x", request_id}`.
 */
import { connectAsync, type MqttClient } from "mqtt";

/** EdgeTools' ToolResult: `output` is any JSON value (often an object), `error` a string. */
export type EvoToolResult = { success: true; output: unknown } | { success: false; error: string };
export type EvoTool = {
  description: string;
  parameters: Record<string, unknown>;
  run: (params: Record<string, unknown>) => EvoToolResult | Promise<EvoToolResult>;
};

export type AgentCommand = { command: string; payload: unknown; request_id: string };

export type EvoClawPeer = {
  client: MqttClient;
  /** commands that parsed, in arrival order */
  commands: AgentCommand[];
  /** messages the real agent would drop ("failed to parse command"), with serde's reason */
  rejected: { topic: string; raw: string; reason: string }[];
  reports: Record<string, unknown>[];
  /** connections it dropped over a packet larger than its limit */
  oversized: { direction: "in" | "out"; bytes: number }[];
  close: () => Promise<void>;
};

/** rumqttc's default max incoming and outgoing packet size, which EvoClaw's agent keeps. */
export const EVOCLAW_PACKET_LIMIT = 10 * 1024;
/** A QoS 1 PUBLISH: fixed header (up to 5 bytes), topic with its length, packet id, payload. */
const packetBytes = (topic: string, payload: string | Buffer) =>
  5 + 2 + Buffer.byteLength(topic) + 2 + Buffer.byteLength(payload);

/** serde_json's derive for AgentCommand: all three fields required, unknown fields ignored. */
export function parseAgentCommand(raw: string): { ok: true; value: AgentCommand } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { ok: false, reason: "invalid type: expected struct AgentCommand" };
  const obj = value as Record<string, unknown>;
  for (const field of ["command", "payload", "request_id"])
    if (!(field in obj)) return { ok: false, reason: `missing field \`${field}\`` };
  if (typeof obj.command !== "string") return { ok: false, reason: "invalid type for `command`: expected a string" };
  if (typeof obj.request_id !== "string")
    return { ok: false, reason: "invalid type for `request_id`: expected a string" };
  return { ok: true, value: { command: obj.command, payload: obj.payload, request_id: obj.request_id } };
}

const field = (payload: unknown, key: string): unknown =>
  typeof payload === "object" && payload !== null && !Array.isArray(payload)
    ? (payload as Record<string, unknown>)[key]
    : undefined;

export async function startEvoClawPeer(
  url: string,
  agentId: string,
  opts: { tools: Record<string, EvoTool>; heartbeatMs?: number; agentType?: string },
): Promise<EvoClawPeer> {
  const topic = (k: string) => `evoclaw/agents/${agentId}/${k}`;
  const agentType = opts.agentType ?? "monitor";
  const commands: AgentCommand[] = [];
  const rejected: EvoClawPeer["rejected"] = [];
  const reports: Record<string, unknown>[] = [];
  const oversized: EvoClawPeer["oversized"] = [];
  const client = await connectAsync(url, {
    clientId: `evoclaw-${agentId}`,
    clean: true,
    keepalive: 30,
    reconnectPeriod: 500,
    resubscribe: false,
  });
  const report = (report_type: string, payload: unknown) => {
    const body = {
      agent_id: agentId,
      agent_type: agentType,
      report_type,
      payload,
      timestamp: Math.floor(Date.now() / 1000),
    };
    const text = JSON.stringify(body);
    if (packetBytes(topic("reports"), text) > EVOCLAW_PACKET_LIMIT) return drop("out", text);
    reports.push(body);
    client.publish(topic("reports"), text, { qos: 1, retain: false });
  };
  /** Over the limit: the event loop's error drops the connection; it reconnects without subscribing. */
  function drop(direction: "in" | "out", data: string | Buffer): void {
    oversized.push({ direction, bytes: Buffer.byteLength(data) });
    client.stream.destroy();
  }

  async function handleTool(cmd: AgentCommand): Promise<["result" | "error", unknown]> {
    const tool = field(cmd.payload, "tool");
    if (typeof tool !== "string") return ["error", { error: "missing tool name", request_id: cmd.request_id }];
    const p = field(cmd.payload, "parameters");
    const params = typeof p === "object" && p !== null && !Array.isArray(p) ? (p as Record<string, unknown>) : {};
    const started = Date.now();
    const def = opts.tools[tool];
    const result: EvoToolResult = def ? await def.run(params) : { success: false, error: `Unknown tool: ${tool}` };
    const elapsed_ms = Date.now() - started;
    return [
      "result",
      result.success
        ? { status: "success", tool, result: result.output, elapsed_ms, request_id: cmd.request_id }
        : { status: "error", tool, error: result.error, elapsed_ms, request_id: cmd.request_id },
    ];
  }

  async function handle(cmd: AgentCommand): Promise<void> {
    if (cmd.command === "ping") return report("result", { pong: true });
    if (cmd.command === "tools_list") {
      const tools = Object.entries(opts.tools).map(([name, t]) => ({
        name,
        description: t.description,
        parameters: t.parameters,
      }));
      return report("result", { tools, count: tools.length, request_id: cmd.request_id });
    }
    if (cmd.command === "tool") {
      const [type, payload] = await handleTool(cmd);
      return report(type, payload);
    }
    report("error", { error: `unknown command: ${cmd.command}`, request_id: cmd.request_id });
  }

  // One command at a time, as the real agent's event loop awaits each before polling the next.
  let queue = Promise.resolve();
  client.on("message", (t, payload) => {
    if (packetBytes(t, payload) > EVOCLAW_PACKET_LIMIT) return drop("in", payload);
    const raw = payload.toString();
    const parsed = parseAgentCommand(raw);
    if (!parsed.ok) {
      rejected.push({ topic: t, raw, reason: parsed.reason });
      return;
    }
    commands.push(parsed.value);
    queue = queue.then(() => handle(parsed.value)).catch(() => undefined);
  });

  await client.subscribeAsync([topic("commands"), "evoclaw/broadcast", topic("strategy")], { qos: 1 });
  await client.publishAsync(
    topic("capabilities"),
    JSON.stringify({ agent_id: agentId, capabilities: `${agentId} sensor node — temperature, GPIO` }),
    { qos: 1, retain: true },
  );
  const beat = () => report("heartbeat", { uptime_secs: 0, memory_mb: 12.5, tasks_completed: commands.length });
  beat();
  const timer = setInterval(beat, opts.heartbeatMs ?? 30_000);
  return {
    client,
    commands,
    rejected,
    reports,
    oversized,
    close: async () => {
      clearInterval(timer);
      await client.endAsync(true);
    },
  };
}
