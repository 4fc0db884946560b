import type { DeviceFrame, HubFrame, Parsed, ToolOutcome } from "@edgeloop/protocol";
import { log } from "../../../../runtime/log.js";
import { randomBase64url, randomHex } from "../../../../runtime/random-token.js";
import type { AlarmSchedule } from "../../../alarm-schedule.js";
import { type HubVars, hubSettings } from "../../hub-settings.js";
import { mayBeOnDevice } from "../../ledger/call-endings.js";
import type { CommandOutcomes } from "../../ledger/command-outcomes.js";
import type { Ledger } from "../../ledger/ledger.js";
import { CLOSE } from "../../sockets/close-codes.js";
import type { DeviceSockets, SocketAttachment } from "../../sockets/device-sockets.js";
import type { DeviceStore } from "../../storage/device-record.js";
import type { DeviceTokens } from "../../storage/device-tokens.js";
import { ConnectParams, event, helloOk, RequestFrame, responseError, responseOk } from "./gateway-frames.js";
import { admit } from "./node-admission.js";
import { NodeCredentials } from "./node-credentials.js";
import { onboardingRequest } from "./node-onboarding.js";
import { answerNodeRequest } from "./node-requests.js";
import type { NodeSocketState } from "./node-socket-state.js";
import { invokeFor, skillsFor } from "./node-tools.js";
import { type PairingDesk, pairingDesk } from "./pairing-desk.js";

/** The node must send `connect` within this long of the challenge, as OpenClaw's gateway requires. */
export const CONNECT_TIMEOUT_MS = 15_000;
/** Advertised in hello-ok; the node closes after twice this without a frame, so ticks go out more often. */
export const TICK_INTERVAL_MS = 30_000;
const TICK_EVERY_MS = 20_000;
/** Sockets that have not signed in yet, at most: the upgrade is open to anyone who knows the path. */
const MAX_UNAUTHENTICATED = 4;

export type NodeAttachment = SocketAttachment & { openclaw?: NodeSocketState };

type Deps = {
  ctx: DurableObjectState;
  env: Parameters<typeof pairingDesk>[0] & HubVars;
  ledger: Ledger;
  store: DeviceStore;
  tokens: DeviceTokens;
  outcomes: CommandOutcomes;
  alarms: AlarmSchedule;
  /** the hub's sockets: attachments are read and written through their copy (device-sockets.ts) */
  sockets: DeviceSockets;
};

/**
 * The gateway side of OpenClaw's node protocol, inside the device hub (docs/openclaw-nodes.md):
 * the challenge and `connect` (node-admission.ts), ticks on the hub's alarm, every request the
 * node makes answered (node-requests.ts), and the hub's frames written the way a node reads
 * them. What the hub does with a result, progress or a manifest is the same as for edgeloop's
 * own agent: this class turns the node's frames into those (`receive`) and the hub's into the
 * node's (`adapt`), so the ledger, exactly-once and the audit are the hub's, unchanged.
 */
export class NodeGateway {
  readonly credentials: NodeCredentials;
  private readonly isNode = new WeakMap<WebSocket, boolean>();
  private readonly pairing: PairingDesk;

  constructor(private readonly d: Deps) {
    this.credentials = new NodeCredentials(d.ctx.storage.sql);
    this.pairing = pairingDesk(d.env);
  }

  private attachmentOf(ws: WebSocket): NodeAttachment | null {
    return this.d.sockets.attachment(ws) as NodeAttachment | null;
  }

  /**
   * What the worker's /v1/openclaw routes ask of this hub, named by `x-edgeloop-openclaw`: a node's
   * socket, or an admin's (or a join URL's) request about onboarding (node-onboarding.ts).
   */
  async fetch(agentId: string, request: Request): Promise<Response> {
    const now = Date.now();
    const op = request.headers.get("x-edgeloop-openclaw");
    if (op === "node") {
      if (request.headers.get("upgrade")?.toLowerCase() !== "websocket")
        return new Response("expected a WebSocket", { status: 426 });
      return this.accept(agentId, now);
    }
    return onboardingRequest(op, request, this.credentials, now);
  }

  /** A node's upgrade: accepted before any credential (it comes in the first frame), then challenged. */
  async accept(agentId: string, now: number): Promise<Response> {
    const waiting = this.d.ctx
      .getWebSockets()
      .filter((ws) => this.attachmentOf(ws)?.openclaw && !this.attachmentOf(ws)?.hello);
    if (waiting.length >= MAX_UNAUTHENTICATED)
      return new Response("too many OpenClaw connections waiting to sign in", { status: 429 });
    const pair = new WebSocketPair();
    const server = pair[1];
    this.d.ctx.acceptWebSocket(server);
    const state: NodeSocketState = { nonce: randomBase64url(24), challenge_ts: now };
    const att: NodeAttachment = {
      agent_id: agentId,
      hello: false,
      bad_frames: 0,
      connected_at: now,
      token_id: "",
      last_frame_at: now,
      openclaw: state,
    };
    this.d.sockets.attach(server, att);
    this.isNode.set(server, true);
    server.send(JSON.stringify(event("connect.challenge", { nonce: state.nonce, ts: now })));
    await this.d.alarms.atMost(now + CONNECT_TIMEOUT_MS);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /** Whether this socket is a node's (remembered per socket, read from its attachment once). */
  owns(ws: WebSocket): boolean {
    let known = this.isNode.get(ws);
    if (known === undefined) {
      known = this.attachmentOf(ws)?.openclaw !== undefined;
      this.isNode.set(ws, known);
    }
    return known;
  }

  /**
   * A frame from a node: answered here, and returned as the edgeloop frame the hub handles
   * (hello, result, progress, manifest_update), or null when there is nothing more to do.
   */
  async receive(ws: WebSocket, text: string, now: number): Promise<Parsed<DeviceFrame> | null> {
    const att = this.attachmentOf(ws)!;
    const state = att.openclaw!;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, error: "not JSON", issues: [] };
    }
    const req = RequestFrame.safeParse(json);
    if (!req.success)
      return { ok: false, error: `not a request frame: ${req.error.issues[0]?.message ?? ""}`, issues: [] };
    const { id, method } = req.data;
    if (!state.device_id) {
      if (method !== "connect") {
        this.reply(ws, responseError(id, { code: "INVALID_REQUEST", message: "the first request must be connect" }));
        ws.close(1008, "connect first");
        return null;
      }
      return this.connect(ws, att, id, req.data.params, now);
    }
    const answer = answerNodeRequest(req.data, {
      ledger: this.d.ledger,
      commands: () => this.credentials.commands(),
      device: () => this.d.store.load(att.agent_id),
      now,
    });
    this.reply(ws, answer.response);
    return answer.frame;
  }

  private async connect(ws: WebSocket, att: NodeAttachment, id: string, raw: unknown, now: number) {
    const parsed = ConnectParams.safeParse(raw);
    if (!parsed.success) {
      const message = `invalid connect params: ${parsed.error.issues[0]?.path.join(".")} ${parsed.error.issues[0]?.message}`;
      this.reply(ws, responseError(id, { code: "INVALID_REQUEST", message }));
      ws.close(1008, "invalid connect");
      return null;
    }
    const p = parsed.data;
    const deps = { credentials: this.credentials, tokens: this.d.tokens, pairing: this.pairing, agentId: att.agent_id };
    const admission = await admit(p, att.openclaw!, deps, now);
    if (!admission.ok) {
      this.d.store.count("openclaw_refused");
      log("warn", "openclaw node refused", { agent_id: att.agent_id, code: admission.error.details?.code });
      this.reply(ws, responseError(id, admission.error));
      ws.close(1008, String(admission.error.details?.code ?? "refused").slice(0, 100));
      return null;
    }
    const state: NodeSocketState = { ...att.openclaw!, device_id: admission.deviceId, protocol: admission.protocol };
    const signedIn: NodeAttachment = { ...att, token_id: admission.tokenId, openclaw: state };
    this.d.sockets.attach(ws, signedIn);
    // One node per agent id: a newer sign-in replaces the older socket, as for edgeloop's agent.
    for (const other of this.d.ctx.getWebSockets())
      if (other !== ws && this.attachmentOf(other)?.hello) other.close(CLOSE.REPLACED.code, CLOSE.REPLACED.reason);
    this.credentials.saveCommands(p.commands);
    const hello = helloOk({
      protocol: admission.protocol,
      connId: randomHex(8),
      version: "edgeloop",
      tickIntervalMs: TICK_INTERVAL_MS,
      // The hub refuses frames over DEVICE_MAX_FRAME_BYTES: the node is told so.
      maxPayload: hubSettings(this.d.env).maxFrameBytes,
      now,
      ...(admission.issuedToken ? { deviceToken: admission.issuedToken } : {}),
    });
    this.reply(ws, responseOk(id, hello));
    await this.cutOff("the node signed in again");
    await this.d.alarms.atMost(now + TICK_EVERY_MS);
    log("info", "openclaw node connected", {
      agent_id: att.agent_id,
      device_id: admission.deviceId,
      protocol: admission.protocol,
      commands: p.commands.length,
      token_id: admission.tokenId,
    });
    const frame: DeviceFrame = {
      type: "hello",
      protocol: 1,
      agent_id: att.agent_id,
      version: `openclaw ${p.client.version ?? "unknown"}`.slice(0, 64),
      capabilities: p.caps,
      skills: skillsFor(p.commands),
      held: [],
      filtered: [],
    };
    return { ok: true as const, value: frame };
  }

  /**
   * Commands the node had when its connection was cut: OpenClaw kills such a command and never
   * reports it, and does no dedupe, so the hub must not send it again. It ends now as
   * `outcome_unknown` (it may have run; docs/architecture.md#call-endings).
   */
  async cutOff(why: string): Promise<void> {
    const { ledger, outcomes } = this.d;
    for (const row of ledger.open()) {
      if (!mayBeOnDevice(row)) continue;
      const outcome: ToolOutcome = {
        status: "error",
        tool: row.tool,
        error:
          `the command was sent to the OpenClaw node, but its connection was cut before a result came back (${why}); ` +
          "a node kills such a command and never reports it, so it may or may not have run",
        error_type: "outcome_unknown",
      };
      if (!outcomes.complete(row, outcome, true)) continue;
      log("warn", "openclaw command cut off", { request_id: row.request_id, conversation_id: row.conversation_id });
      const done = ledger.get(row.request_id);
      if (done) await outcomes.deliver(done);
    }
  }

  /** A node's socket closed: what it was running is lost, unless it already signed in again. */
  async closed(ws: WebSocket): Promise<void> {
    const att = this.attachmentOf(ws);
    if (!att?.openclaw?.device_id) return;
    const again = this.d.ctx
      .getWebSockets()
      .some((o) => o !== ws && o.readyState === WebSocket.OPEN && this.attachmentOf(o)?.hello);
    if (!again) await this.cutOff("the connection closed");
  }

  /**
   * The hub's frame for a node's socket, as the node reads it; undefined for another socket
   * (sent as it is), null for a frame a node has no use for (acks: it keeps no results), false
   * for a command it cannot run.
   */
  adapt(ws: WebSocket, frame: HubFrame): string | null | false | undefined {
    if (!this.owns(ws)) return undefined;
    const nodeId = this.attachmentOf(ws)?.openclaw?.device_id;
    if (frame.type !== "command") return null;
    if (!nodeId) return false;
    if (frame.command === "cancel")
      return JSON.stringify(event("node.invoke.cancel", { invokeId: frame.request_id, nodeId }));
    const { tool, parameters, timeout_ms } = frame.payload;
    const agentId = this.attachmentOf(ws)!.agent_id;
    const manifest = this.d.store
      .load(agentId)
      .skills.flatMap((s) => s.tools)
      .find((t) => t.name === tool);
    const invoke = invokeFor(manifest, parameters, timeout_ms);
    // A tool the node no longer has: left unsent, so it ends `not_sent` at its deadline.
    if (!invoke) return false;
    return JSON.stringify(
      event("node.invoke.request", {
        id: frame.request_id,
        nodeId,
        command: invoke.command,
        paramsJSON: JSON.stringify(invoke.params),
        timeoutMs: timeout_ms,
        idempotencyKey: frame.request_id,
      }),
    );
  }

  /** On the hub's alarm: a tick to every signed-in node, and sockets that never signed in are closed. */
  async tick(now: number): Promise<void> {
    let nodes = false;
    for (const ws of this.d.ctx.getWebSockets()) {
      const att = this.attachmentOf(ws);
      if (!att?.openclaw) continue;
      if (att.hello) {
        nodes = true;
        this.reply(ws, event("tick", { ts: now }));
      } else if (now - att.connected_at >= CONNECT_TIMEOUT_MS) {
        ws.close(1008, "connect timeout");
      } else {
        await this.d.alarms.atMost(att.connected_at + CONNECT_TIMEOUT_MS);
      }
    }
    if (nodes) await this.d.alarms.atMost(now + TICK_EVERY_MS);
  }

  private reply(ws: WebSocket, frame: object): void {
    try {
      ws.send(JSON.stringify(frame));
    } catch (e) {
      log("warn", "send to openclaw node failed", { error: String(e) });
    }
  }
}
