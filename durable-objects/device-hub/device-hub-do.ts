import { DurableObject } from "cloudflare:workers";
import {
  type ElicitationReply,
  elicitationAnswerFrame,
  PING_FRAME,
  PONG_FRAME,
  type SkillManifest,
  type ToolOutcome,
  UNREACHABLE_CLOSE_CODE,
} from "@edgeloop/protocol";
import { log } from "../../runtime/log.js";
import { afterPendingSends } from "../after-pending-sends.js";
import { AlarmSchedule } from "../alarm-schedule.js";
import type { DurableObjectBindings } from "../bindings.js";
import type { PairingVars } from "../deployment/pairing-settings.js";
import type { DeviceReport } from "../registry/registry-rpc.js";
import type {
  DeviceHubRpc,
  DeviceIntake,
  DeviceView,
  DispatchAnswer,
  DispatchCommand,
  ElicitationDelivery,
} from "./device-hub-rpc.js";
import { FrameIntake } from "./frame-intake.js";
import { HubChecks } from "./hub-checks.js";
import { frameOverLimit, type HubVars, hubSettings } from "./hub-settings.js";
import { mayBeOnDevice } from "./ledger/call-endings.js";
import { commandFrame } from "./ledger/command-frame.js";
import { CommandOutcomes } from "./ledger/command-outcomes.js";
import { Ledger, type LedgerRow } from "./ledger/ledger.js";
import { DeviceSockets } from "./sockets/device-sockets.js";
import { type AuditEntry, AuditLog, type AuditQuery, type DenialRecord, type ToolStats } from "./storage/audit-log.js";
import { ClipStore, type StoredClip } from "./storage/clip-store.js";
import { DeviceStore } from "./storage/device-record.js";
import { DeviceTokens, type IssuedToken, type TokenInfo } from "./storage/device-tokens.js";
import { type DeviceLoad, deviceLoad } from "./views/device-load.js";
import { deviceView } from "./views/device-view.js";
import { RegistryReporter } from "./views/registry-reporter.js";
import { EdgeloopWire } from "./wires/edgeloop-wire.js";
import { NodeCommandOutput } from "./wires/openclaw/node-command-output.js";
import { NodeCredentials, type NodeSetupSecret, type RevokedKey } from "./wires/openclaw/node-credentials.js";
import { OpenClawWire } from "./wires/openclaw/openclaw-wire.js";
import { WireSet } from "./wires/wire-set.js";

/** What a hub reads from its environment: the objects it addresses, its own vars, and pairing's (an OpenClaw node may ask to pair). */
export type HubEnv = DurableObjectBindings & HubVars & PairingVars;

/**
 * One per device: holds its socket (hibernation API, so an idle device costs nothing), its
 * advertised manifest, the ledger of commands sent to it, its issued tokens and its audit log.
 * This class keeps the socket's life (accepted on the wire its route names, frames decoded by that
 * wire and handed to the intake), the RPC surface and the alarm; the rest lives in the folders
 * named for it (docs/architecture.md#devices).
 */
export class DeviceHubDO extends DurableObject<HubEnv> implements DeviceHubRpc {
  private readonly ledger: Ledger;
  private readonly store: DeviceStore;
  private readonly tokens: DeviceTokens;
  private readonly audit: AuditLog;
  private readonly alarms: AlarmSchedule;
  private readonly sockets: DeviceSockets;
  private readonly wires: WireSet;
  private readonly nodeCredentials: NodeCredentials;
  private readonly outcomes: CommandOutcomes;
  private readonly registry: RegistryReporter;
  private readonly checks: HubChecks;
  private readonly intake: FrameIntake;
  private readonly clips: ClipStore;

  constructor(ctx: DurableObjectState, env: HubEnv) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    this.ledger = new Ledger(sql);
    this.store = new DeviceStore(sql);
    this.tokens = new DeviceTokens(sql);
    this.audit = new AuditLog(sql);
    this.alarms = new AlarmSchedule(ctx.storage);
    this.sockets = new DeviceSockets(ctx);
    this.nodeCredentials = new NodeCredentials(sql);
    this.clips = new ClipStore(sql);
    const { ledger, store, tokens, audit, alarms, sockets, clips } = this;
    this.outcomes = new CommandOutcomes(env, ledger, audit, store, alarms);
    const { outcomes } = this;
    // The wires this hub speaks; a socket's is picked once, when it is accepted (wires/device-wire.ts).
    this.wires = new WireSet(sockets, {
      edgeloop: new EdgeloopWire({ sockets, tokens, store }),
      openclaw: new OpenClawWire({
        env,
        ledger,
        store,
        tokens,
        credentials: this.nodeCredentials,
        output: new NodeCommandOutput(sql),
        outcomes,
        alarms,
        sockets,
        clips,
      }),
    });
    this.registry = new RegistryReporter(env, store, sockets, alarms, this.nodeCredentials);
    const { wires, registry } = this;
    const settings = hubSettings(env);
    this.checks = new HubChecks({
      ledger,
      store,
      audit,
      sockets,
      wires,
      outcomes,
      registry,
      alarms,
      settings,
      startedAt: Date.now(),
    });
    this.intake = new FrameIntake({ env, ledger, store, sockets, wires, outcomes, registry, checks: this.checks });
    // Heartbeats are answered by the runtime without waking the object; the alarm reads
    // getWebSocketAutoResponseTimestamp to see them.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING_FRAME, PONG_FRAME));
  }

  // ---- the device's socket ---------------------------------------------------------------

  /**
   * A device's socket, the one thing that comes by fetch: the worker has checked the path and the
   * upgrade, and names the wire the socket speaks (`x-edgeloop-wire`). That wire lets it in; every
   * frame after goes through it (docs/architecture.md#device-wires).
   */
  override async fetch(request: Request): Promise<Response> {
    const agentId = request.headers.get("x-edgeloop-agent-id");
    const wire = this.wires.pick(request);
    if (!agentId || !wire || request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected a device WebSocket", { status: 400 });
    }
    const answer = await wire.accept(request, agentId, Date.now());
    if (answer.status === 101) await this.checks.schedule();
    return answer;
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const maxFrameBytes = hubSettings(this.env).maxFrameBytes;
    const att = this.sockets.noteFrame(ws, Date.now());
    if (frameOverLimit(message, maxFrameBytes)) {
      this.store.count("oversized_frames");
      const head =
        typeof message === "string" ? message.slice(0, 4096) : new TextDecoder().decode(message.slice(0, 4096));
      const size = typeof message === "string" ? message.length : message.byteLength;
      const ended = this.wires.of(ws).oversized?.(ws, head, size, maxFrameBytes);
      if (ended) return this.intake.handle(ws, att, ended);
      return this.intake.reject(ws, att, `frame over ${maxFrameBytes} bytes`);
    }
    const text = typeof message === "string" ? message : new TextDecoder().decode(message);
    const decoded = await this.wires.of(ws).decode(ws, text, Date.now());
    if (decoded) await this.intake.handle(ws, att, decoded);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    const att = this.sockets.attachment(ws);
    // A close the hub made and reported itself keeps the last-seen time and reason it recorded.
    const reported = this.sockets.closeWasReported(ws);
    if (att?.hello && !reported) {
      this.store.rememberAgentId(att.agent_id);
      this.store.touch(Date.now(), true);
    }
    // The bridge found the device unreachable behind it: the reason is kept for the view and for
    // the calls that wait (docs/architecture.md#call-endings).
    const unreachable = att?.hello && code === UNREACHABLE_CLOSE_CODE && this.sockets.live() === null;
    if (unreachable) this.store.setOfflineReason(reason.slice(0, 200) || "unreachable");
    await this.wires.of(ws).closed(ws);
    log("info", "device disconnected", { agent_id: att?.agent_id, code, reason });
    if (!reported) await this.registry.report(unreachable ? "unreachable" : "close");
  }

  override async webSocketError(ws: WebSocket, error: unknown): Promise<void> {
    const att = this.sockets.attachment(ws);
    log("warn", "device socket error", { agent_id: att?.agent_id, error: String(error) });
    await this.registry.report("error");
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
      const sent = ws !== null && this.wires.send(ws, frame);
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
    if (ws && mayBeOnDevice(row)) this.wires.send(ws, { type: "command", command: "cancel", request_id: requestId });
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

  async answerElicitation(
    requestId: string,
    elicitationId: string,
    reply: ElicitationReply,
  ): Promise<ElicitationDelivery> {
    const row = this.ledger.get(requestId);
    if (!row || row.state === "done") return "ended";
    const ws = this.sockets.live();
    const frame = elicitationAnswerFrame({ request_id: requestId, elicitation_id: elicitationId }, reply);
    return ws && this.wires.send(ws, frame) ? "sent" : "offline";
  }

  async getDevice(agentId: string): Promise<DeviceView> {
    return deviceView(this.store, this.ledger, this.sockets, this.tokens, this.nodeCredentials, agentId);
  }

  async getLoad(agentId: string): Promise<DeviceLoad> {
    return deviceLoad(this.ctx.storage.sql, this.ledger, this.sockets, this.store.load(agentId));
  }

  async getSkills(agentId: string): Promise<SkillManifest[]> {
    this.store.rememberAgentId(agentId);
    return this.store.load(agentId).skills;
  }

  async getIntake(agentId: string): Promise<DeviceIntake> {
    const record = this.store.load(agentId);
    // As getLoad's `online` and `last_alive`, then isKnown: without the ledger count neither needs.
    const connectedOnce = this.sockets.live() !== null || record.last_seen !== null;
    if (!connectedOnce && (await this.isKnown())) return { never_connected: true };
    this.store.rememberAgentId(agentId);
    return { never_connected: false, skills: record.skills };
  }

  async getClip(sha256: string): Promise<StoredClip | null> {
    return this.clips.get(sha256);
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
    // An OpenClaw node's key goes with its token: refused from now on, not asked about again.
    const keys = found ? this.nodeCredentials.revokeKeysOf(tokenId, Date.now()) : [];
    const closed = this.sockets.closeRevoked(tokenId);
    log("info", "device token revoked", { token_id: tokenId, found, closed, keys: keys.length });
    if (closed > 0 || keys.length > 0) await this.registry.report("token_revoked");
    return { found, closed };
  }

  async clearRevoked(agentId: string): Promise<RevokedKey[]> {
    this.store.rememberAgentId(agentId);
    const cleared = this.nodeCredentials.clearRevoked();
    log("info", "revoked device keys cleared", { agent_id: agentId, keys: cleared.length });
    if (cleared.length > 0) await this.registry.report("revocation_cleared");
    return cleared;
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

  // ---- RPC from the OpenClaw onboarding routes (docs/openclaw-nodes.md#set-up) ---------------

  async mintNodeSetup(ttlMs: number): Promise<NodeSetupSecret> {
    const minted = await this.nodeCredentials.mintSetup(Date.now(), ttlMs);
    log("info", "openclaw setup code minted", { expires_at: minted.expires_at });
    return minted;
  }

  async nodeJoinExpiry(code: string): Promise<number | null> {
    return this.nodeCredentials.setupExpiry(code, Date.now());
  }

  // ---- the alarm: deadlines, redelivery, heartbeats, audit retention (see HubChecks) ----------

  override async alarm(): Promise<void> {
    // run() sets the next one.
    this.alarms.fired();
    await this.runChecks(Date.now());
  }

  async runChecks(now: number): Promise<void> {
    await this.checks.run(now);
    await this.wires.tick(now);
  }
}
