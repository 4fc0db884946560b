import { DurableObject } from "cloudflare:workers";
import {
  DeviceFrame,
  type HelloFrame,
  type HubFrame,
  parseJson,
  PING_FRAME,
  PONG_FRAME,
  type ProgressFrame,
  type ResultFrame,
  type SkillManifest,
  type ToolCommandFrame,
  type ToolOutcome,
} from "../../protocol/index.js";
import { readConfig } from "../../worker/config.js";
import type { Env } from "../../worker/env.js";
import { log } from "../../worker/log.js";
import { type DeviceRecord, DeviceStore, recordFromHello } from "./device-record.js";
import { Ledger, type LedgerRow } from "./ledger.js";

export type DispatchCommand = {
  request_id: string;
  conversation_id: string;
  tool_call_id: string;
  tool: string;
  parameters: Record<string, unknown>;
  timeout_ms: number;
};

export type DeviceView = DeviceRecord & {
  online: boolean;
  commands: Record<string, number>;
  counters: Record<string, number>;
};

type SocketAttachment = { agent_id: string; hello: boolean; bad_frames: number; connected_at: number };

const MAX_FRAME_BYTES = 4 * 1024 * 1024;
const MAX_BAD_FRAMES = 5;
/** How often undelivered outcomes are retried to the conversation. */
const REDELIVER_MS = 5_000;

/**
 * One per device: holds its socket (hibernation API, so an idle device costs nothing), its
 * advertised manifest, and the ledger of commands sent to it.
 */
export class DeviceHubDO extends DurableObject<Env> {
  private readonly ledger: Ledger;
  private readonly store: DeviceStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.ledger = new Ledger(ctx.storage.sql);
    this.store = new DeviceStore(ctx.storage.sql);
    // Heartbeats are answered by the runtime without waking the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING_FRAME, PONG_FRAME));
  }

  // ---- the device's socket ---------------------------------------------------------------

  override async fetch(request: Request): Promise<Response> {
    const agentId = request.headers.get("x-edgeloop-agent-id");
    if (!agentId || request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected a device WebSocket", { status: 400 });
    }
    // One live socket per device: a new connection replaces the old one.
    for (const old of this.ctx.getWebSockets()) old.close(4000, "replaced by a newer connection");
    const pair = new WebSocketPair();
    const server = pair[1];
    this.ctx.acceptWebSocket(server);
    const attachment: SocketAttachment = { agent_id: agentId, hello: false, bad_frames: 0, connected_at: Date.now() };
    server.serializeAttachment(attachment);
    log("info", "device connected", { agent_id: agentId });
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const att = ws.deserializeAttachment() as SocketAttachment;
    const text = typeof message === "string" ? message : new TextDecoder().decode(message);
    if (text.length > MAX_FRAME_BYTES) return this.reject(ws, att, `frame over ${MAX_FRAME_BYTES} bytes`);
    const parsed = parseJson(DeviceFrame, text);
    if (!parsed.ok) return this.reject(ws, att, `invalid frame: ${parsed.error}`);
    const frame = parsed.value;
    switch (frame.type) {
      case "hello":
        return this.onHello(ws, att, frame);
      case "result":
        return this.onResult(ws, att, frame);
      case "progress":
        return this.onProgress(frame);
    }
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    const att = ws.deserializeAttachment() as SocketAttachment | null;
    this.touch();
    log("info", "device disconnected", { agent_id: att?.agent_id, code, reason });
  }

  override async webSocketError(ws: WebSocket, error: unknown): Promise<void> {
    const att = ws.deserializeAttachment() as SocketAttachment | null;
    log("warn", "device socket error", { agent_id: att?.agent_id, error: String(error) });
  }

  private onHello(ws: WebSocket, att: SocketAttachment, hello: HelloFrame): void {
    if (hello.agent_id !== att.agent_id) {
      this.store.count("rejected_frames");
      ws.close(4003, "hello agent_id does not match the authenticated device");
      return;
    }
    const record = recordFromHello(this.store.load(att.agent_id), hello, Date.now());
    this.store.save(record);
    ws.serializeAttachment({ ...att, hello: true });
    const held = new Set(hello.held);
    // Re-send what the device never got; what it still holds will come back as a result.
    for (const row of this.ledger.open()) {
      if (held.has(row.request_id)) continue;
      this.send(ws, row.frame);
      this.ledger.markSent(row.request_id);
    }
    log("info", "device hello", {
      agent_id: att.agent_id,
      version: hello.version,
      tools: hello.skills.flatMap((s) => s.tools.map((t) => t.name)).length,
      held: hello.held.length,
    });
  }

  private async onResult(ws: WebSocket, att: SocketAttachment, frame: ResultFrame): Promise<void> {
    const row = this.ledger.get(frame.request_id);
    if (!row) return this.reject(ws, att, `unknown request_id '${frame.request_id}'`, frame.request_id);
    if (row.tool !== frame.tool) return this.reject(ws, att, `request '${frame.request_id}' was for '${row.tool}', not '${frame.tool}'`, frame.request_id);
    // Whether first or repeated, acknowledge: the device may stop re-sending it.
    this.send(ws, { type: "ack", request_ids: [frame.request_id] });
    const { type: _t, request_id: _r, ...outcome } = frame;
    if (!this.ledger.complete(frame.request_id, outcome as ToolOutcome)) {
      this.store.count("duplicate_results");
      return;
    }
    this.touch();
    log("info", "tool result", {
      agent_id: att.agent_id,
      conversation_id: row.conversation_id,
      request_id: row.request_id,
      tool: row.tool,
      status: frame.status,
      error_type: frame.status === "error" ? frame.error_type : undefined,
      elapsed_ms: frame.elapsed_ms,
    });
    await this.deliver({ ...row, outcome: outcome as ToolOutcome });
  }

  private async onProgress(frame: ProgressFrame): Promise<void> {
    const row = this.ledger.get(frame.request_id);
    if (!row || row.state === "done") return;
    try {
      await this.conversation(row.conversation_id).deliverProgress(row.tool_call_id, row.request_id, frame.content);
    } catch (e) {
      log("warn", "progress not delivered", { request_id: row.request_id, error: String(e) });
    }
  }

  private reject(ws: WebSocket, att: SocketAttachment, reason: string, requestId?: string): void {
    this.store.count("rejected_frames");
    const bad = att.bad_frames + 1;
    ws.serializeAttachment({ ...att, bad_frames: bad });
    log("warn", "frame rejected", { agent_id: att.agent_id, reason, request_id: requestId });
    this.send(ws, { type: "rejected", reason, ...(requestId ? { request_id: requestId } : {}) });
    if (bad >= MAX_BAD_FRAMES) ws.close(4008, "too many invalid frames");
  }

  // ---- RPC from conversations ------------------------------------------------------------

  /** Idempotent: a command re-dispatched after a restart keeps its request id and is not re-sent. */
  async dispatch(cmd: DispatchCommand): Promise<{ accepted: boolean; state: string }> {
    const now = Date.now();
    const frame: ToolCommandFrame = {
      type: "command",
      command: "tool",
      request_id: cmd.request_id,
      payload: { tool: cmd.tool, parameters: cmd.parameters, timeout_ms: cmd.timeout_ms, request_id: cmd.request_id },
    };
    const inserted = this.ledger.insert({
      request_id: cmd.request_id,
      conversation_id: cmd.conversation_id,
      tool_call_id: cmd.tool_call_id,
      tool: cmd.tool,
      frame,
      state: "queued",
      deadline: now + cmd.timeout_ms + this.graceMs(),
      created_at: now,
    });
    if (inserted) {
      const ws = this.liveSocket();
      if (ws) {
        this.send(ws, frame);
        this.ledger.markSent(cmd.request_id);
      }
    }
    await this.scheduleAlarm();
    const row = this.ledger.get(cmd.request_id);
    if (row && row.state === "done" && !row.delivered) await this.deliver(row);
    return { accepted: inserted, state: row?.state ?? "unknown" };
  }

  async cancel(requestId: string): Promise<void> {
    const row = this.ledger.get(requestId);
    if (!row || row.state === "done") return;
    const ws = this.liveSocket();
    if (ws && row.state === "sent") this.send(ws, { type: "command", command: "cancel", request_id: requestId });
    this.ledger.complete(requestId, {
      status: "error",
      tool: row.tool,
      error: "cancelled by the conversation",
      error_type: "cancelled",
    });
    this.ledger.markDelivered(requestId);
  }

  async getDevice(agentId: string): Promise<DeviceView> {
    const record = this.store.load(agentId);
    return { ...record, online: this.liveSocket() !== null, commands: this.ledger.counts(), counters: this.store.counters() };
  }

  async getSkills(agentId: string): Promise<SkillManifest[]> {
    return this.store.load(agentId).skills;
  }

  // ---- deadlines and redelivery ----------------------------------------------------------

  override async alarm(): Promise<void> {
    const now = Date.now();
    const ws = this.liveSocket();
    for (const row of this.ledger.expired(now)) {
      const outcome: ToolOutcome =
        row.state === "sent"
          ? { status: "error", tool: row.tool, error: `Tool '${row.tool}' timed out after ${row.frame.payload.timeout_ms}ms (no result from the device)`, error_type: "timeout" }
          : { status: "error", tool: row.tool, error: `the device was offline until the call's deadline (${row.frame.payload.timeout_ms}ms)`, error_type: "unavailable" };
      if (ws && row.state === "sent") this.send(ws, { type: "command", command: "cancel", request_id: row.request_id });
      this.ledger.complete(row.request_id, outcome);
      log("warn", "command expired", { request_id: row.request_id, conversation_id: row.conversation_id, tool: row.tool, error_type: outcome.status === "error" ? outcome.error_type : undefined });
    }
    for (const row of this.ledger.undelivered()) await this.deliver(row);
    this.ledger.prune(now);
    await this.scheduleAlarm();
  }

  private async deliver(row: LedgerRow): Promise<void> {
    if (!row.outcome) return;
    try {
      await this.conversation(row.conversation_id).deliverToolResult(row.tool_call_id, row.request_id, row.outcome);
      this.ledger.markDelivered(row.request_id);
    } catch (e) {
      // Left undelivered: the alarm retries until the conversation takes it.
      log("warn", "result not delivered, will retry", { request_id: row.request_id, error: String(e) });
      await this.ctx.storage.setAlarm(Date.now() + REDELIVER_MS);
    }
  }

  private async scheduleAlarm(): Promise<void> {
    const times = [this.ledger.nextDeadline()];
    if (this.ledger.undelivered().length > 0) times.push(Date.now() + REDELIVER_MS);
    const next = times.filter((t): t is number => t !== null).sort((a, b) => a - b)[0];
    if (next === undefined) return;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > next || current < Date.now()) await this.ctx.storage.setAlarm(next);
  }

  // ---- helpers -----------------------------------------------------------------------------

  private liveSocket(): WebSocket | null {
    for (const ws of this.ctx.getWebSockets()) {
      const att = ws.deserializeAttachment() as SocketAttachment | null;
      if (att?.hello && ws.readyState === WebSocket.OPEN) return ws;
    }
    return null;
  }

  private liveAttachment(): SocketAttachment | null {
    const ws = this.ctx.getWebSockets()[0];
    return ws ? (ws.deserializeAttachment() as SocketAttachment) : null;
  }

  private send(ws: WebSocket, frame: HubFrame): void {
    try {
      ws.send(JSON.stringify(frame));
    } catch (e) {
      log("warn", "send to device failed", { error: String(e) });
    }
  }

  private touch(): void {
    const att = this.liveAttachment();
    if (!att) return;
    const record = this.store.load(att.agent_id);
    this.store.save({ ...record, last_seen: Date.now() });
  }

  private graceMs(): number {
    const cfg = readConfig(this.env);
    return cfg.ok ? cfg.config.DEVICE_RESULT_GRACE_MS : 3_000;
  }

  private conversation(conversationId: string) {
    return this.env.CONVERSATION.get(this.env.CONVERSATION.idFromName(conversationId));
  }
}
