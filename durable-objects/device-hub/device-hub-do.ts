import { DurableObject } from "cloudflare:workers";
import {
  type HelloFrame,
  type ManifestUpdateFrame,
  PING_FRAME,
  PONG_FRAME,
  type ProgressFrame,
  parseDeviceFrame,
  type ResultFrame,
  type SkillManifest,
  type ToolOutcome,
} from "@edgeloop/protocol";
import { log } from "../../runtime/log.js";
import { problemResponse } from "../../runtime/problem.js";
import { conversationFor } from "../addresses.js";
import { afterPendingSends } from "../after-pending-sends.js";
import { AlarmSchedule } from "../alarm-schedule.js";
import type { DurableObjectBindings } from "../bindings.js";
import type { DeviceReport } from "../registry/registry-rpc.js";
import type { DeviceHubRpc, DeviceView, DispatchAnswer, DispatchCommand } from "./device-hub-rpc.js";
import { HubChecks } from "./hub-checks.js";
import { frameOverLimit, type HubVars, hubSettings } from "./hub-settings.js";
import { mayBeOnDevice } from "./ledger/call-endings.js";
import { commandFrame } from "./ledger/command-frame.js";
import { CommandOutcomes } from "./ledger/command-outcomes.js";
import { Ledger, type LedgerRow } from "./ledger/ledger.js";
import { CLOSE } from "./sockets/close-codes.js";
import { DeviceSockets, type SocketAttachment } from "./sockets/device-sockets.js";
import { type AuditEntry, AuditLog, type AuditQuery, type DenialRecord, type ToolStats } from "./storage/audit-log.js";
import { DeviceStore, manifestUpdated, recordFromHello } from "./storage/device-record.js";
import { DeviceTokens, type IssuedToken, type TokenInfo } from "./storage/device-tokens.js";
import { type DeviceLoad, deviceLoad } from "./views/device-load.js";
import { deviceView } from "./views/device-view.js";
import { RegistryReporter } from "./views/registry-reporter.js";
import { NodeGateway } from "./wires/openclaw/node-gateway.js";

/** What a hub reads from its environment: the objects it addresses and its own vars. */
export type HubEnv = DurableObjectBindings & HubVars;

/**
 * One per device: holds its socket (hibernation API, so an idle device costs nothing), its
 * advertised manifest, the ledger of commands sent to it, its issued tokens and its audit log.
 * This class keeps the RPC surface and the device's frames; the socket, the outcomes, the alarm's
 * checks and the registry reports live in the files named for them.
 */
export class DeviceHubDO extends DurableObject<HubEnv> implements DeviceHubRpc {
  private readonly ledger: Ledger;
  private readonly store: DeviceStore;
  private readonly tokens: DeviceTokens;
  private readonly audit: AuditLog;
  private readonly alarms: AlarmSchedule;
  private readonly sockets: DeviceSockets;
  private readonly outcomes: CommandOutcomes;
  private readonly registry: RegistryReporter;
  private readonly checks: HubChecks;
  private readonly nodes: NodeGateway;

  constructor(ctx: DurableObjectState, env: HubEnv) {
    super(ctx, env);
    this.ledger = new Ledger(ctx.storage.sql);
    this.store = new DeviceStore(ctx.storage.sql);
    this.tokens = new DeviceTokens(ctx.storage.sql);
    this.audit = new AuditLog(ctx.storage.sql);
    this.alarms = new AlarmSchedule(ctx.storage);
    this.sockets = new DeviceSockets(ctx, (ws, frame) => this.nodes.adapt(ws, frame));
    this.outcomes = new CommandOutcomes(env, this.ledger, this.audit, this.store, this.alarms);
    const { ledger, store, tokens, outcomes, alarms } = this;
    this.nodes = new NodeGateway({ ctx, env, ledger, store, tokens, outcomes, alarms, sockets: this.sockets });
    this.registry = new RegistryReporter(env, this.store, this.sockets, this.alarms);
    this.checks = new HubChecks({
      ledger: this.ledger,
      store: this.store,
      audit: this.audit,
      sockets: this.sockets,
      outcomes: this.outcomes,
      registry: this.registry,
      alarms: this.alarms,
      settings: hubSettings(env),
      startedAt: Date.now(),
    });
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
    if (agentId && request.headers.has("x-edgeloop-openclaw")) return this.nodes.fetch(agentId, request);
    if (!agentId || request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected a device WebSocket", { status: 400 });
    }
    const now = Date.now();
    let tokenId = request.headers.get("x-edgeloop-token-id") === "env" ? "env" : null;
    const hash = request.headers.get("x-edgeloop-token-sha256");
    if (!tokenId && hash) tokenId = this.tokens.match(hash, now);
    // Nothing is written for a refused token (the worker counts the refusal), so guessing at
    // agent ids cannot fill storage.
    if (!tokenId) {
      const detail = "invalid device token for this agent id";
      return problemResponse(401, "Unauthorized", detail, {}, { "www-authenticate": "Bearer" });
    }
    this.store.rememberAgentId(agentId);
    const client = this.sockets.accept(agentId, tokenId, now);
    await this.checks.schedule();
    log("info", "device connected", { agent_id: agentId, token_id: tokenId });
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const maxFrameBytes = hubSettings(this.env).maxFrameBytes;
    const att = this.sockets.noteFrame(ws, Date.now());
    if (frameOverLimit(message, maxFrameBytes)) {
      this.store.count("oversized_frames");
      return this.reject(ws, att, `frame over ${maxFrameBytes} bytes`);
    }
    const text = typeof message === "string" ? message : new TextDecoder().decode(message);
    const parsed = this.nodes.owns(ws) ? await this.nodes.receive(ws, text, Date.now()) : parseDeviceFrame(text);
    if (!parsed) return; // a node's request, answered
    if (!parsed.ok) return this.reject(ws, att, `invalid frame: ${parsed.error.slice(0, 300)}`);
    const frame = parsed.value;
    if (frame.type === "hello") return this.onHello(ws, att, frame);
    // Until the device has said who it is, it gets no commands and may send no results.
    if (!att.hello)
      return this.reject(ws, att, `'${frame.type}' before hello`, "request_id" in frame ? frame.request_id : undefined);
    if (frame.type === "manifest_update") return this.onManifestUpdate(att, frame);
    if (frame.type === "result") return this.onResult(ws, att, frame);
    // The device (or its broker) took the command; unknown or finished ids are ignored (a hint).
    if (frame.type === "accepted") return this.ledger.markAccepted(frame.request_id);
    return this.onProgress(ws, att, frame);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    const att = this.sockets.attachment(ws);
    if (att?.hello) this.touch(att.agent_id, true);
    await this.nodes.closed(ws);
    log("info", "device disconnected", { agent_id: att?.agent_id, code, reason });
    await this.registry.report("close");
  }

  override async webSocketError(ws: WebSocket, error: unknown): Promise<void> {
    const att = this.sockets.attachment(ws);
    log("warn", "device socket error", { agent_id: att?.agent_id, error: String(error) });
    await this.registry.report("error");
  }

  private async onHello(ws: WebSocket, att: SocketAttachment, hello: HelloFrame): Promise<void> {
    if (hello.agent_id !== att.agent_id) {
      this.store.count("rejected_frames");
      ws.close(CLOSE.AGENT_MISMATCH.code, CLOSE.AGENT_MISMATCH.reason);
      return;
    }
    this.store.save(recordFromHello(this.store.load(att.agent_id), hello, Date.now()));
    this.sockets.helloFrom(ws, att);
    const held = new Set(hello.held);
    // Re-send what the device never got; what it still holds will come back as a result.
    for (const row of this.ledger.open()) {
      if (held.has(row.request_id)) {
        this.ledger.markAccepted(row.request_id);
        continue;
      }
      if (this.sockets.send(ws, row.frame)) this.ledger.markSent(row.request_id);
    }
    log("info", "device hello", {
      agent_id: att.agent_id,
      version: hello.version,
      tools: hello.skills.flatMap((s) => s.tools.map((t) => t.name)).length,
      held: hello.held.length,
    });
    await this.registry.report("hello");
    await this.checks.schedule();
  }

  /** New tools for the next message's run; commands already in the ledger are not touched. */
  private async onManifestUpdate(att: SocketAttachment, frame: ManifestUpdateFrame): Promise<void> {
    this.store.save(manifestUpdated(this.store.load(att.agent_id), frame));
    log("info", "device manifest updated", {
      agent_id: att.agent_id,
      tools: frame.skills.flatMap((s) => s.tools.map((t) => t.name)).length,
    });
    await this.registry.report("manifest_update");
  }

  private async onResult(ws: WebSocket, att: SocketAttachment, frame: ResultFrame): Promise<void> {
    const id = frame.request_id;
    const row = this.ledger.get(id);
    // Request ids are per hub: another device's request is as unknown here as a made-up one.
    if (!row) return this.reject(ws, att, `unknown request_id '${id}'`, id);
    if (row.state === "queued") return this.reject(ws, att, `request '${id}' was never sent to this device`, id);
    if (row.tool !== frame.tool)
      return this.reject(ws, att, `request '${id}' was for '${row.tool}', not '${frame.tool}'`, id);
    const { type: _t, request_id: _r, ...rest } = frame;
    const outcome = rest as ToolOutcome;
    if (row.state === "done" && row.ended_by_hub && !row.late) {
      // Ended by the hub, so this is late: acknowledged once kept, else the device sends it again.
      if (await this.outcomes.late(row, outcome)) this.sockets.send(ws, { type: "ack", request_ids: [id] });
      return;
    }
    if (row.state === "done") {
      // A repeat after a lost ack is normal, so it does not count towards closing the socket; it
      // is acknowledged again (the first one is on record), refused and counted.
      this.sockets.send(ws, { type: "ack", request_ids: [id] });
      this.store.count("duplicate_results");
      this.sockets.send(ws, { type: "rejected", reason: `duplicate result for '${id}'`, request_id: id });
      return;
    }
    // The conversation is told first, the result recorded after: docs/architecture.md#output-gates.
    await this.outcomes.deliver({ ...row, outcome });
    this.outcomes.complete(row, outcome);
    // The ack waits for the record to be durable: from then on the device may forget the result.
    this.sockets.send(ws, { type: "ack", request_ids: [id] });
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
      await conversationFor(this.env, row.conversation_id).deliverProgress(
        row.tool_call_id,
        row.request_id,
        frame.content,
      );
    } catch (e) {
      log("warn", "progress not delivered", { request_id: row.request_id, error: String(e) });
    }
  }

  private reject(ws: WebSocket, att: SocketAttachment, reason: string, requestId?: string): void {
    this.store.count("rejected_frames");
    this.sockets.reject(ws, att, reason, requestId);
  }

  // ---- RPC from conversations ------------------------------------------------------------

  async dispatch(cmd: DispatchCommand): Promise<DispatchAnswer> {
    return (await this.dispatchBatch([cmd]))[0]!;
  }

  async dispatchBatch(cmds: DispatchCommand[]): Promise<DispatchAnswer[]> {
    const now = Date.now();
    const graceMs = hubSettings(this.env).graceMs;
    const ws = this.sockets.live();
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
      const frame = commandFrame(cmd);
      const sent = ws !== null && this.sockets.send(ws, frame);
      const { request_id, conversation_id, tool_call_id, tool } = cmd;
      const deadline = now + cmd.timeout_ms + graceMs;
      const state = sent ? "sent" : "queued";
      const approval = cmd.approval ?? null;
      this.ledger.stage({
        request_id,
        conversation_id,
        tool_call_id,
        tool,
        frame,
        state,
        deadline,
        created_at: now,
        approval,
      });
      answers.push({ accepted: true, state });
      earliestDeadline = Math.min(earliestDeadline, deadline);
    }
    // The rows are written once the frames have left: docs/architecture.md#output-gates.
    if (earliestDeadline !== Infinity) {
      await afterPendingSends();
      this.ledger.flush();
      // Only the new deadlines changed, so the alarm need only be no later than the earliest: it
      // is never postponed, and when it goes off it works out the next time from everything.
      await this.alarms.atMost(earliestDeadline);
    }
    for (const row of redeliver) await this.outcomes.deliver(row);
    return answers;
  }

  async cancel(requestId: string): Promise<void> {
    const row = this.ledger.get(requestId);
    if (!row || row.state === "done") return;
    const ws = this.sockets.live();
    if (ws && mayBeOnDevice(row)) this.sockets.send(ws, { type: "command", command: "cancel", request_id: requestId });
    const outcome: ToolOutcome = {
      status: "error",
      tool: row.tool,
      error: "cancelled by the conversation",
      error_type: "cancelled",
    };
    // The conversation asked for the cancel and takes no outcome: delivered, in the same write.
    this.ledger.markDeliveredLater(requestId);
    this.outcomes.complete(row, outcome, true);
    this.ledger.flush();
  }

  async getDevice(agentId: string): Promise<DeviceView> {
    return deviceView(this.store, this.ledger, this.sockets, this.tokens, agentId);
  }

  async getLoad(agentId: string): Promise<DeviceLoad> {
    return deviceLoad(this.ctx.storage.sql, this.ledger, this.sockets, this.store.load(agentId));
  }

  async getSkills(agentId: string): Promise<SkillManifest[]> {
    this.store.rememberAgentId(agentId);
    return this.store.load(agentId).skills;
  }

  async isKnown(): Promise<boolean> {
    return this.sockets.live() !== null || this.store.everSeen() || this.tokens.list().length > 0;
  }

  async followPool(agentId: string, pool: string): Promise<DeviceReport> {
    this.store.rememberAgentId(agentId);
    return this.registry.follow(agentId, pool);
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

  async revokeToken(tokenId: string): Promise<{ found: boolean; closed: number }> {
    const found = this.tokens.revoke(tokenId);
    const closed = this.sockets.closeRevoked(tokenId);
    log("info", "device token revoked", { token_id: tokenId, found, closed });
    if (closed > 0) await this.registry.report("token_revoked");
    return { found, closed };
  }

  async queryAudit(q: AuditQuery): Promise<AuditEntry[]> {
    return this.audit.query(q);
  }

  async recordDenial(d: DenialRecord): Promise<void> {
    if (this.audit.hasRequest(d.request_id)) return; // a re-driven report
    this.audit.recordDenial({ ...d, ts: Date.now(), agent_id: this.store.agentId() ?? "unknown" });
  }

  async toolMetrics(since: number): Promise<ToolStats[]> {
    return this.audit.toolStats(since);
  }

  // ---- the alarm: deadlines, redelivery, heartbeats, audit retention (see HubChecks) ----------

  override async alarm(): Promise<void> {
    // run() sets the next one.
    this.alarms.fired();
    await this.runChecks(Date.now());
  }

  async runChecks(now: number): Promise<void> {
    await this.checks.run(now);
    await this.nodes.tick(now);
  }

  private touch(agentId: string, force = false): void {
    this.store.rememberAgentId(agentId);
    this.store.touch(Date.now(), force);
  }
}
