import { DurableObject } from "cloudflare:workers";
import {
  DeviceFrame,
  type HelloFrame,
  type HubFrame,
  PING_FRAME,
  PONG_FRAME,
  type ProgressFrame,
  parseJson,
  type ResultFrame,
  type SkillManifest,
  type ToolCommandFrame,
  type ToolOutcome,
} from "../../protocol/index.js";
import type { Env } from "../../worker/env.js";
import { log } from "../../worker/log.js";
import { afterPendingSends } from "../after-pending-sends.js";
import { AlarmSchedule } from "../alarm-schedule.js";
import type { DeviceReport } from "../registry/registry-do.js";
import { type AuditEntry, AuditLog, type AuditQuery, type ToolStats } from "./audit-log.js";
import { CLOSE } from "./close-codes.js";
import { type DeviceRecord, DeviceStore, recordFromHello } from "./device-record.js";
import { DeviceTokens, type IssuedToken, type TokenInfo } from "./device-tokens.js";
import { frameOverLimit, hubConfig } from "./hub-config.js";
import { Ledger, type LedgerRow } from "./ledger.js";

export type DispatchCommand = {
  request_id: string;
  conversation_id: string;
  tool_call_id: string;
  tool: string;
  parameters: Record<string, unknown>;
  timeout_ms: number;
};

export type DispatchAnswer = { accepted: boolean; state: string };

export type DeviceView = DeviceRecord & {
  online: boolean;
  /** when the device last showed it is alive (a frame, or a ping answered by auto-response) */
  last_alive: number | null;
  commands: Record<string, number>;
  counters: Record<string, number>;
  tokens: number;
};

type SocketAttachment = {
  agent_id: string;
  hello: boolean;
  bad_frames: number;
  connected_at: number;
  /** "env" for a DEVICE_TOKENS token, else the id of the issued token it authenticated with */
  token_id: string;
  last_frame_at: number;
};

const MAX_BAD_FRAMES = 5;
/** How stale the last-frame time kept in a socket's attachment may get (it only matters after hibernation). */
const ATTACHMENT_REFRESH_MS = 5_000;
/** How often undelivered outcomes (and registry reports) are retried. */
const REDELIVER_MS = 5_000;

/**
 * One per device: holds its socket (hibernation API, so an idle device costs nothing), its
 * advertised manifest, the ledger of commands sent to it, its issued tokens and its audit log.
 */
export class DeviceHubDO extends DurableObject<Env> {
  private readonly ledger: Ledger;
  private readonly store: DeviceStore;
  private readonly tokens: DeviceTokens;
  private readonly audit: AuditLog;
  private readonly alarms: AlarmSchedule;
  /** when each socket last sent a frame; the attachment copy is refreshed only now and then */
  private readonly lastFrameAt = new WeakMap<WebSocket, number>();
  /** the socket that said hello, while this instance lives (see `liveSocket`) */
  private helloSocket: WebSocket | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.ledger = new Ledger(ctx.storage.sql);
    this.store = new DeviceStore(ctx.storage.sql);
    this.tokens = new DeviceTokens(ctx.storage.sql);
    this.audit = new AuditLog(ctx.storage.sql);
    this.alarms = new AlarmSchedule(ctx.storage);
    // Heartbeats are answered by the runtime without waking the object; the alarm reads
    // getWebSocketAutoResponseTimestamp to see them.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING_FRAME, PONG_FRAME));
  }

  // ---- the device's socket ---------------------------------------------------------------

  /**
   * The worker has checked the path and the upgrade. It either vouches for the token
   * (`x-edgeloop-token-id: env`, a DEVICE_TOKENS token) or passes its SHA-256
   * (`x-edgeloop-token-sha256`) for this hub to match against the tokens it issued.
   */
  override async fetch(request: Request): Promise<Response> {
    const agentId = request.headers.get("x-edgeloop-agent-id");
    if (!agentId || request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected a device WebSocket", { status: 400 });
    }
    const now = Date.now();
    let tokenId = request.headers.get("x-edgeloop-token-id") === "env" ? "env" : null;
    const hash = request.headers.get("x-edgeloop-token-sha256");
    if (!tokenId && hash) tokenId = this.tokens.match(hash, now);
    // Nothing is written for a refused token (the worker counts the refusal), so guessing at
    // agent ids cannot fill storage.
    if (!tokenId) return unauthorized("invalid device token for this agent id");
    this.store.rememberAgentId(agentId);
    // One live socket per device: a new connection replaces the old one.
    for (const old of this.ctx.getWebSockets()) old.close(CLOSE.REPLACED.code, CLOSE.REPLACED.reason);
    this.helloSocket = null;
    const pair = new WebSocketPair();
    const server = pair[1];
    this.ctx.acceptWebSocket(server);
    const attachment: SocketAttachment = {
      agent_id: agentId,
      hello: false,
      bad_frames: 0,
      connected_at: now,
      token_id: tokenId,
      last_frame_at: now,
    };
    server.serializeAttachment(attachment);
    await this.scheduleAlarm();
    log("info", "device connected", { agent_id: agentId, token_id: tokenId });
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const cfg = hubConfig(this.env);
    const now = Date.now();
    let att = ws.deserializeAttachment() as SocketAttachment;
    this.lastFrameAt.set(ws, now);
    // The attachment outlives hibernation, when the in-memory time is lost. Rewriting it on every
    // frame cost each tool result a serialization; a copy a few seconds old is as good for a
    // heartbeat allowance of tens of seconds.
    if (now - att.last_frame_at > ATTACHMENT_REFRESH_MS) {
      att = { ...att, last_frame_at: now };
      ws.serializeAttachment(att);
    }
    if (frameOverLimit(message, cfg.maxFrameBytes)) {
      this.store.count("oversized_frames");
      return this.reject(ws, att, `frame over ${cfg.maxFrameBytes} bytes`);
    }
    const text = typeof message === "string" ? message : new TextDecoder().decode(message);
    const parsed = parseJson(DeviceFrame, text);
    if (!parsed.ok) return this.reject(ws, att, `invalid frame: ${parsed.error.slice(0, 300)}`);
    const frame = parsed.value;
    if (frame.type === "hello") return this.onHello(ws, att, frame);
    // Until the device has said who it is, it gets no commands and may send no results.
    if (!att.hello) return this.reject(ws, att, `'${frame.type}' before hello`, frame.request_id);
    if (frame.type === "result") return this.onResult(ws, att, frame);
    return this.onProgress(ws, att, frame);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    const att = ws.deserializeAttachment() as SocketAttachment | null;
    if (att?.hello) this.touch(att.agent_id, true);
    log("info", "device disconnected", { agent_id: att?.agent_id, code, reason });
    await this.reportToRegistry("close");
  }

  override async webSocketError(ws: WebSocket, error: unknown): Promise<void> {
    const att = ws.deserializeAttachment() as SocketAttachment | null;
    log("warn", "device socket error", { agent_id: att?.agent_id, error: String(error) });
    await this.reportToRegistry("error");
  }

  private async onHello(ws: WebSocket, att: SocketAttachment, hello: HelloFrame): Promise<void> {
    if (hello.agent_id !== att.agent_id) {
      this.store.count("rejected_frames");
      ws.close(CLOSE.AGENT_MISMATCH.code, CLOSE.AGENT_MISMATCH.reason);
      return;
    }
    const record = recordFromHello(this.store.load(att.agent_id), hello, Date.now());
    this.store.save(record);
    ws.serializeAttachment({ ...att, hello: true });
    this.helloSocket = ws;
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
    await this.reportToRegistry("hello");
    await this.scheduleAlarm();
  }

  private async onResult(ws: WebSocket, att: SocketAttachment, frame: ResultFrame): Promise<void> {
    const row = this.ledger.get(frame.request_id);
    // Request ids are per hub: another device's request is as unknown here as a made-up one.
    if (!row) return this.reject(ws, att, `unknown request_id '${frame.request_id}'`, frame.request_id);
    if (row.state === "queued")
      return this.reject(ws, att, `request '${frame.request_id}' was never sent to this device`, frame.request_id);
    if (row.tool !== frame.tool)
      return this.reject(
        ws,
        att,
        `request '${frame.request_id}' was for '${row.tool}', not '${frame.tool}'`,
        frame.request_id,
      );
    if (row.state === "done") {
      // A repeat after a lost ack is normal, so it does not count towards closing the socket; it
      // is acknowledged again (the first one is on record), refused and counted.
      this.send(ws, { type: "ack", request_ids: [frame.request_id] });
      this.store.count("duplicate_results");
      this.send(ws, {
        type: "rejected",
        reason: `duplicate result for '${frame.request_id}'`,
        request_id: frame.request_id,
      });
      return;
    }
    const { type: _t, request_id: _r, ...rest } = frame;
    const outcome = rest as ToolOutcome;
    // The conversation is told first, and the result recorded only once it has it: this runtime
    // runs the hub and the conversation on one thread, and the record's commit (a disk flush) would
    // otherwise come before the conversation's next step; and anything sent after a write waits on
    // the output gate until the write is durable. If the hub dies before the record, the device was
    // not acknowledged and sends the result again; the conversation drops the repeat.
    await this.deliver({ ...row, outcome });
    this.completeCommand(row, outcome);
    // The ack waits for the record to be durable: from then on the device may forget the result.
    this.send(ws, { type: "ack", request_ids: [frame.request_id] });
    this.touch(att.agent_id);
    log("info", "tool result", {
      agent_id: att.agent_id,
      conversation_id: row.conversation_id,
      request_id: row.request_id,
      tool: row.tool,
      status: frame.status,
      error_type: frame.status === "error" ? frame.error_type : undefined,
      elapsed_ms: frame.elapsed_ms,
    });
  }

  private async onProgress(ws: WebSocket, att: SocketAttachment, frame: ProgressFrame): Promise<void> {
    const row = this.ledger.get(frame.request_id);
    if (!row || row.state === "queued")
      return this.reject(ws, att, `progress for unknown request_id '${frame.request_id}'`, frame.request_id);
    if (row.state === "done") return; // late progress for a finished call: harmless, dropped
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
    if (bad >= MAX_BAD_FRAMES) ws.close(CLOSE.TOO_MANY_BAD_FRAMES.code, CLOSE.TOO_MANY_BAD_FRAMES.reason);
  }

  // ---- RPC from conversations ------------------------------------------------------------

  /** Idempotent: a command re-dispatched after a restart keeps its request id and is not re-sent. */
  async dispatch(cmd: DispatchCommand): Promise<DispatchAnswer> {
    return (await this.dispatchBatch([cmd]))[0]!;
  }

  /**
   * Several commands (one model response's parallel calls) in one event: one commit for all of
   * them instead of one per call, and the device gets them back to back.
   */
  async dispatchBatch(cmds: DispatchCommand[]): Promise<DispatchAnswer[]> {
    const now = Date.now();
    const graceMs = hubConfig(this.env).graceMs;
    const ws = this.liveSocket();
    const answers: DispatchAnswer[] = [];
    const redeliver: LedgerRow[] = [];
    let earliestDeadline = Infinity;
    for (const cmd of cmds) {
      const known = this.ledger.get(cmd.request_id);
      if (known) {
        // A re-dispatch (the conversation restarted): it may have finished while nobody listened.
        if (known.state === "done" && !known.delivered) redeliver.push(known);
        answers.push({ accepted: false, state: known.state });
        continue;
      }
      const frame: ToolCommandFrame = {
        type: "command",
        command: "tool",
        request_id: cmd.request_id,
        payload: { tool: cmd.tool, parameters: cmd.parameters, timeout_ms: cmd.timeout_ms, request_id: cmd.request_id },
      };
      const sent = ws !== null && this.send(ws, frame);
      const { request_id, conversation_id, tool_call_id, tool } = cmd;
      const deadline = now + cmd.timeout_ms + graceMs;
      this.ledger.stage({
        request_id,
        conversation_id,
        tool_call_id,
        tool,
        frame,
        state: sent ? "sent" : "queued",
        deadline,
        created_at: now,
      });
      answers.push({ accepted: true, state: sent ? "sent" : "queued" });
      earliestDeadline = Math.min(earliestDeadline, deadline);
    }
    // The rows are written only once the frames have left, so the output gate does not hold the
    // frames until the rows are durable. A result that comes back sooner finds its row staged.
    // The answer to the conversation still waits for the commit: if the hub dies first, the
    // conversation dispatches again with the same request ids, and the device runs each once (it
    // keeps results by request id) and answers with the stored result.
    if (earliestDeadline !== Infinity) {
      await afterPendingSends();
      this.ledger.flush();
      // Only the new deadlines changed, so the alarm need only be no later than the earliest: it
      // is never postponed, and when it goes off it works out the next time from everything.
      await this.alarms.atMost(earliestDeadline);
    }
    for (const row of redeliver) await this.deliver(row);
    return answers;
  }

  async cancel(requestId: string): Promise<void> {
    const row = this.ledger.get(requestId);
    if (!row || row.state === "done") return;
    const ws = this.liveSocket();
    if (ws && row.state === "sent") this.send(ws, { type: "command", command: "cancel", request_id: requestId });
    this.completeCommand(row, {
      status: "error",
      tool: row.tool,
      error: "cancelled by the conversation",
      error_type: "cancelled",
    });
    this.ledger.markDelivered(requestId);
  }

  async getDevice(agentId: string): Promise<DeviceView> {
    this.store.rememberAgentId(agentId);
    const record = this.store.load(agentId);
    const ws = this.liveSocket();
    return {
      ...record,
      online: ws !== null,
      last_alive: ws ? this.lastAlive(ws) : record.last_seen,
      commands: this.ledger.counts(),
      counters: this.store.counters(),
      tokens: this.tokens.list().length,
    };
  }

  async getSkills(agentId: string): Promise<SkillManifest[]> {
    this.store.rememberAgentId(agentId);
    return this.store.load(agentId).skills;
  }

  // ---- RPC from the admin API --------------------------------------------------------------

  async issueToken(agentId: string): Promise<IssuedToken> {
    this.store.rememberAgentId(agentId);
    const issued = await this.tokens.issue(Date.now());
    log("info", "device token issued", { agent_id: agentId, token_id: issued.token_id });
    return issued;
  }

  async listTokens(): Promise<TokenInfo[]> {
    return this.tokens.list();
  }

  /** Revoke a token and close, at once, any socket that authenticated with it (4001). */
  async revokeToken(tokenId: string): Promise<{ found: boolean; closed: number }> {
    const found = this.tokens.revoke(tokenId);
    let closed = 0;
    for (const ws of this.ctx.getWebSockets()) {
      const att = ws.deserializeAttachment() as SocketAttachment | null;
      if (att?.token_id !== tokenId) continue;
      ws.close(CLOSE.TOKEN_REVOKED.code, CLOSE.TOKEN_REVOKED.reason);
      closed++;
    }
    log("info", "device token revoked", { token_id: tokenId, found, closed });
    if (closed > 0) await this.reportToRegistry("token_revoked");
    return { found, closed };
  }

  async queryAudit(q: AuditQuery): Promise<AuditEntry[]> {
    return this.audit.query(q);
  }

  async toolMetrics(since: number): Promise<ToolStats[]> {
    return this.audit.toolStats(since);
  }

  // ---- alarm: deadlines, redelivery, heartbeats, audit retention -----------------------------

  override async alarm(): Promise<void> {
    // runChecks sets the next one.
    this.alarms.fired();
    await this.runChecks(Date.now());
  }

  /** Everything the alarm does, for a given `now` (tests pass a later one instead of waiting). */
  async runChecks(now: number): Promise<void> {
    const cfg = hubConfig(this.env);
    const ws = this.liveSocket();
    for (const row of this.ledger.expired(now)) {
      const outcome: ToolOutcome =
        row.state === "sent"
          ? {
              status: "error",
              tool: row.tool,
              error: `Tool '${row.tool}' timed out after ${row.frame.payload.timeout_ms}ms (no result from the device)`,
              error_type: "timeout",
            }
          : {
              status: "error",
              tool: row.tool,
              error: `the device was offline until the call's deadline (${row.frame.payload.timeout_ms}ms)`,
              error_type: "unavailable",
            };
      if (ws && row.state === "sent") this.send(ws, { type: "command", command: "cancel", request_id: row.request_id });
      this.completeCommand(row, outcome);
      log("warn", "command expired", {
        request_id: row.request_id,
        conversation_id: row.conversation_id,
        tool: row.tool,
        error_type: outcome.status === "error" ? outcome.error_type : undefined,
      });
    }
    for (const row of this.ledger.undelivered()) await this.deliver(row);
    this.ledger.prune(now);
    await this.checkHeartbeats(now, cfg.heartbeatIntervalMs * cfg.heartbeatMisses);
    const pruned = this.audit.prune(now - cfg.auditRetentionMs);
    if (pruned > 0) log("info", "audit rows pruned", { rows: pruned });
    if (this.store.flag("registry_dirty")) await this.reportToRegistry("retry");
    await this.scheduleAlarm(now);
  }

  /** A socket with no frame and no answered ping for `allowedMs` is dead: close it, mark offline. */
  private async checkHeartbeats(now: number, allowedMs: number): Promise<void> {
    let missed = false;
    for (const ws of this.ctx.getWebSockets()) {
      const att = ws.deserializeAttachment() as SocketAttachment | null;
      if (!att) continue;
      const alive = this.lastAlive(ws);
      if (now - alive <= allowedMs) continue;
      if (att.hello) this.store.save({ ...this.store.load(att.agent_id), last_seen: alive });
      ws.close(CLOSE.HEARTBEAT_MISSED.code, CLOSE.HEARTBEAT_MISSED.reason);
      this.store.count("heartbeats_missed");
      log("warn", "device missed its heartbeats", { agent_id: att.agent_id, last_alive: alive, allowed_ms: allowedMs });
      missed = true;
    }
    if (missed) await this.reportToRegistry("heartbeat_missed");
  }

  private lastAlive(ws: WebSocket): number {
    const att = ws.deserializeAttachment() as SocketAttachment;
    const pinged = this.ctx.getWebSocketAutoResponseTimestamp(ws)?.getTime() ?? 0;
    return Math.max(pinged, this.lastFrameAt.get(ws) ?? 0, att.last_frame_at ?? 0, att.connected_at);
  }

  private async deliver(row: LedgerRow): Promise<void> {
    if (!row.outcome) return;
    try {
      await this.conversation(row.conversation_id).deliverToolResult(row.tool_call_id, row.request_id, row.outcome);
      this.ledger.markDeliveredLater(row.request_id);
    } catch (e) {
      // Left undelivered: the alarm retries until the conversation takes it.
      log("warn", "result not delivered, will retry", { request_id: row.request_id, error: String(e) });
      await this.alarms.atMost(Date.now() + REDELIVER_MS);
    }
  }

  private async scheduleAlarm(now = Date.now()): Promise<void> {
    const cfg = hubConfig(this.env);
    const times: (number | null)[] = [this.ledger.nextDeadline()];
    if (this.ledger.hasUndelivered() || this.store.flag("registry_dirty")) times.push(now + REDELIVER_MS);
    // Heartbeat check: when the quietest socket would run out of allowance.
    for (const ws of this.ctx.getWebSockets())
      times.push(this.lastAlive(ws) + cfg.heartbeatIntervalMs * cfg.heartbeatMisses + 1);
    const oldest = this.audit.oldest();
    if (oldest !== null) times.push(oldest + cfg.auditRetentionMs + 1);
    const next = times.filter((t): t is number => t !== null).sort((a, b) => a - b)[0];
    if (next !== undefined) await this.alarms.atMost(next);
  }

  // ---- helpers -----------------------------------------------------------------------------

  /** Record the outcome once and write the audit row; false if the command already had one. */
  private completeCommand(row: LedgerRow, outcome: ToolOutcome): boolean {
    if (!this.ledger.complete(row.request_id, outcome)) return false;
    this.audit.record({
      ts: Date.now(),
      agent_id: this.store.agentId() ?? "unknown",
      tool: row.tool,
      parameters: row.frame.payload.parameters,
      outcome,
      request_id: row.request_id,
      conversation_id: row.conversation_id,
    });
    return true;
  }

  /**
   * Tell the registry what this device looks like now. A failure is remembered and retried by the
   * alarm, so the registry catches up without the device having to do anything.
   */
  private async reportToRegistry(reason: string): Promise<void> {
    const agentId = this.store.agentId();
    if (!agentId) return;
    const record = this.store.load(agentId);
    const ws = this.liveSocket();
    const report: DeviceReport = {
      agent_id: agentId,
      online: ws !== null,
      last_seen: ws ? Date.now() : record.last_seen,
      version: record.version,
      tools: record.skills.flatMap((s) => s.tools.map((t) => t.name)),
      reason,
    };
    try {
      await this.env.REGISTRY.get(this.env.REGISTRY.idFromName("global")).report(report);
      this.store.setFlag("registry_dirty", false);
    } catch (e) {
      log("warn", "registry report failed, will retry", { agent_id: agentId, error: String(e) });
      this.store.setFlag("registry_dirty", true);
      await this.alarms.atMost(Date.now() + REDELIVER_MS);
    }
  }

  /** The device's socket once it said hello, found by a scan only after a wake from hibernation or a reconnect. */
  private liveSocket(): WebSocket | null {
    if (this.helloSocket?.readyState === WebSocket.OPEN) return this.helloSocket;
    this.helloSocket = null;
    for (const ws of this.ctx.getWebSockets()) {
      const att = ws.deserializeAttachment() as SocketAttachment | null;
      if (att?.hello && ws.readyState === WebSocket.OPEN) {
        this.helloSocket = ws;
        return ws;
      }
    }
    return null;
  }

  private send(ws: WebSocket, frame: HubFrame): boolean {
    try {
      ws.send(JSON.stringify(frame));
      return true;
    } catch (e) {
      log("warn", "send to device failed", { error: String(e) });
      return false;
    }
  }

  private touch(agentId: string, force = false): void {
    this.store.rememberAgentId(agentId);
    this.store.touch(Date.now(), force);
  }

  private conversation(conversationId: string) {
    return this.env.CONVERSATION.get(this.env.CONVERSATION.idFromName(conversationId));
  }
}

/** problem+json from inside the hub, for the one answer it gives straight to a client. */
function unauthorized(detail: string): Response {
  const body = { type: "about:blank", title: "Unauthorized", status: 401, detail };
  return new Response(JSON.stringify(body), {
    status: 401,
    headers: { "content-type": "application/problem+json", "www-authenticate": "Bearer" },
  });
}
