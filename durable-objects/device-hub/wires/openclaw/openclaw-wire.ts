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
import type { ClipStore } from "../../storage/clip-store.js";
import type { DeviceStore } from "../../storage/device-record.js";
import type { DeviceTokens } from "../../storage/device-tokens.js";
import type { DeviceWire } from "../device-wire.js";
import { ClipFlow } from "./clip-flow.js";
import { ConnectParams, event, helloOk, responseError, responseOk } from "./gateway-frames.js";
import { admit } from "./node-admission.js";
import { POSTER_SUFFIX } from "./node-clips.js";
import { nodeEventFor, readNodeRequest } from "./node-codec.js";
import type { NodeCommandOutput } from "./node-command-output.js";
import type { NodeCredentials } from "./node-credentials.js";
import { answerNodeRequest } from "./node-requests.js";
import { NODE_SILENCE_MS, type NodeSocketState } from "./node-socket-state.js";
import { skillsFor } from "./node-tools.js";
import { pairingDesk } from "./pairing-desk.js";
import type { PairingDesk } from "./pairing-desk-type.js";
import { offeredCommands } from "./phone-data-commands.js";

/** The node must send `connect` within this long of the challenge, as OpenClaw's gateway requires. */
export const CONNECT_TIMEOUT_MS = 15_000;
/** Advertised in hello-ok; the node closes after twice this without a frame, so ticks go out more often. */
export const TICK_INTERVAL_MS = 30_000;
const TICK_EVERY_MS = 20_000;
/** Sockets that have not signed in yet, at most: the upgrade is open to anyone who knows the path. */
const MAX_UNAUTHENTICATED = 4;

export type NodeAttachment = SocketAttachment & { openclaw?: NodeSocketState };

type Deps = {
  env: Parameters<typeof pairingDesk>[0] & HubVars;
  ledger: Ledger;
  store: DeviceStore;
  tokens: DeviceTokens;
  credentials: NodeCredentials;
  /** progress text kept for the commands whose result leaves it out */
  output: NodeCommandOutput;
  outcomes: CommandOutcomes;
  alarms: AlarmSchedule;
  /** the hub's sockets: attachments are read and written, and frames written, through them */
  sockets: DeviceSockets;
  clips: ClipStore;
};

/**
 * OpenClaw's gateway protocol as a device wire (docs/openclaw-nodes.md): the challenge and
 * `connect` (node-admission.ts), ticks on the hub's alarm, every request the node makes answered
 * (node-requests.ts), and the hub's frames written the way a node reads them (node-codec.ts).
 * What the hub does with a result, progress or a manifest is the same as for edgeloop's own agent:
 * this wire turns the node's frames into those (`decode`) and the hub's into the node's (`encode`),
 * so the ledger, exactly-once and the audit are the hub's, unchanged.
 */
export class OpenClawWire implements DeviceWire {
  readonly name = "openclaw" as const;
  private readonly pairing: PairingDesk;
  private readonly clips: ClipFlow;

  constructor(private readonly d: Deps) {
    this.pairing = pairingDesk(d.env);
    this.clips = new ClipFlow({
      ledger: d.ledger,
      clips: d.clips,
      skills: (agentId) => d.store.load(agentId).skills,
      commands: () => d.credentials.commands(),
    });
  }

  private attachmentOf(ws: WebSocket): NodeAttachment | null {
    return this.d.sockets.attachment(ws);
  }

  /** This wire's sockets, with their attachments. */
  private nodes(): { ws: WebSocket; att: NodeAttachment }[] {
    return this.d.sockets.open().flatMap(({ ws, att }) => (att?.wire === this.name ? [{ ws, att }] : []));
  }

  private write(ws: WebSocket, frame: object): void {
    this.d.sockets.write(ws, JSON.stringify(frame));
  }

  /** A node's upgrade: accepted before any credential (it comes in the first frame), then challenged. */
  async accept(request: Request, agentId: string, now: number): Promise<Response> {
    if (this.nodes().filter(({ att }) => !att.hello).length >= MAX_UNAUTHENTICATED)
      return new Response("too many OpenClaw connections waiting to sign in", { status: 429 });
    const origin = new URL(request.url).origin;
    const state: NodeSocketState = { nonce: randomBase64url(24), challenge_ts: now, origin };
    const att: NodeAttachment = {
      agent_id: agentId,
      wire: this.name,
      hello: false,
      bad_frames: 0,
      connected_at: now,
      token_id: "",
      last_frame_at: now,
      openclaw: state,
    };
    const { client, server } = this.d.sockets.accept(att);
    this.write(server, event("connect.challenge", { nonce: state.nonce, ts: now }));
    await this.d.alarms.atMost(now + CONNECT_TIMEOUT_MS);
    return new Response(null, { status: 101, webSocket: client });
  }

  /**
   * A frame from a node: answered here, and returned as the edgeloop frame the hub handles
   * (hello, result, progress, manifest_update), or null when there is nothing more to do.
   */
  async decode(ws: WebSocket, text: string, now: number): Promise<Parsed<DeviceFrame> | null> {
    const att = this.attachmentOf(ws)!;
    const read = readNodeRequest(text);
    if (!read.ok) return read;
    const { id, method, params } = read.value;
    if (!att.openclaw?.device_id) {
      if (method !== "connect") {
        this.write(ws, responseError(id, { code: "INVALID_REQUEST", message: "the first request must be connect" }));
        this.d.sockets.close(ws, { code: 1008, reason: "connect first" });
        return null;
      }
      return this.connect(ws, att, id, params, now);
    }
    const node = { agentId: att.agent_id, nodeId: att.openclaw.device_id, origin: att.openclaw.origin ?? "" };
    const clip = this.clips.take(read.value, node, now);
    if (clip) {
      this.write(ws, clip.response);
      if (clip.send) this.write(ws, clip.send);
      return clip.frame;
    }
    const answer = answerNodeRequest(read.value, {
      ledger: this.d.ledger,
      commands: () => this.d.credentials.commands(),
      published: () => this.d.credentials.published(),
      savePublished: (p) => this.d.credentials.savePublished(p),
      output: this.d.output,
      device: () => this.d.store.load(att.agent_id),
      now,
    });
    this.write(ws, answer.response);
    return answer.frame;
  }

  private async connect(ws: WebSocket, att: NodeAttachment, id: string, raw: unknown, now: number) {
    const parsed = ConnectParams.safeParse(raw);
    if (!parsed.success) {
      const message = `invalid connect params: ${parsed.error.issues[0]?.path.join(".")} ${parsed.error.issues[0]?.message}`;
      this.write(ws, responseError(id, { code: "INVALID_REQUEST", message }));
      this.d.sockets.close(ws, { code: 1008, reason: "invalid connect" });
      return null;
    }
    const p = parsed.data;
    const { credentials, tokens } = this.d;
    const admission = await admit(
      p,
      att.openclaw!,
      { credentials, tokens, pairing: this.pairing, agentId: att.agent_id },
      now,
    );
    if (!admission.ok) {
      this.d.store.count("openclaw_refused");
      log("warn", "openclaw node refused", { agent_id: att.agent_id, code: admission.error.details?.code });
      this.write(ws, responseError(id, admission.error));
      this.d.sockets.close(ws, {
        code: 1008,
        reason: String(admission.error.details?.code ?? "refused").slice(0, 100),
      });
      return null;
    }
    credentials.noteTokenUse(admission.tokenId, admission.deviceId);
    const state: NodeSocketState = {
      ...att.openclaw!,
      device_id: admission.deviceId,
      protocol: admission.protocol,
      execution_id: crypto.randomUUID(),
    };
    const signedIn: NodeAttachment = { ...att, token_id: admission.tokenId, openclaw: state };
    this.d.sockets.attach(ws, signedIn);
    // One node per agent id: a newer sign-in replaces the older socket, as for edgeloop's agent.
    for (const other of this.d.sockets.open())
      if (other.ws !== ws && other.att?.hello) this.d.sockets.close(other.ws, CLOSE.REPLACED);
    // What it advertised that edgeloop offers (`watch.*` only from an iPhone, as OpenClaw's gateway).
    const commands = offeredCommands(p.commands, p.client);
    credentials.saveCommands(commands);
    this.d.output.clear();
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
    this.write(ws, responseOk(id, hello));
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
      skills: skillsFor(commands),
      held: [],
      filtered: [],
    };
    return { ok: true as const, value: frame };
  }

  encode(ws: WebSocket, frame: HubFrame): string | null | false {
    const att = this.attachmentOf(ws);
    // Only a tool command needs the node's tools: the one it names says which node command runs it.
    const tools =
      frame.type === "command" && frame.command === "tool" && att
        ? this.d.store.load(att.agent_id).skills.flatMap((s) => s.tools)
        : [];
    return nodeEventFor(frame, att?.openclaw?.device_id, tools, att?.openclaw?.execution_id);
  }

  /**
   * Commands the node had when its connection was cut: OpenClaw kills such a command and never
   * reports it, and does no dedupe, so the hub must not send it again. It ends now as
   * `outcome_unknown` (it may have run; docs/architecture.md#call-endings).
   */
  private async cutOff(why: string): Promise<void> {
    const { ledger, outcomes } = this.d;
    for (const row of ledger.open()) {
      if (!mayBeOnDevice(row)) continue;
      // A clip already stored ends with its link, without the still the node never sent.
      const clip = this.clips.withoutPoster(row.request_id, `the still was not taken: ${why}`, Date.now());
      if (clip) {
        if (outcomes.complete(row, clip)) {
          const done = ledger.get(row.request_id);
          if (done) await outcomes.deliver(done);
        }
        continue;
      }
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
    if (!this.attachmentOf(ws)?.openclaw?.device_id) return;
    const again = this.d.sockets.open().some((o) => o.ws !== ws && o.att?.hello);
    if (!again) await this.cutOff("the connection closed");
  }

  /** On the hub's alarm: a tick to every signed-in node, and sockets that never signed in are closed. */
  async tick(now: number): Promise<void> {
    let signedIn = false;
    for (const { ws, att } of this.nodes()) {
      if (att.hello) {
        signedIn = true;
        this.write(ws, event("tick", { ts: now }));
      } else if (now - att.connected_at >= CONNECT_TIMEOUT_MS) {
        this.d.sockets.close(ws, { code: 1008, reason: "connect timeout" });
      } else {
        await this.d.alarms.atMost(att.connected_at + CONNECT_TIMEOUT_MS);
      }
    }
    if (signedIn) await this.d.alarms.atMost(now + TICK_EVERY_MS);
  }

  /**
   * A result too big for one frame (a long clip, usually): its call ends now with an error that says
   * so, instead of at its deadline as `outcome_unknown`. OpenClaw's node writes the invoke id first
   * in the params (node-host/client.ts), so it is in the frame's head.
   */
  oversized(ws: WebSocket, head: string, size: number, limit: number): Parsed<DeviceFrame> | null {
    const att = this.attachmentOf(ws);
    const invoke =
      /^\{"type":"req","id":"([^"]{1,256})","method":"node\.invoke\.result","params":\{"id":"([^"]{1,256})"/.exec(head);
    if (!att?.openclaw?.device_id || !invoke) return null;
    const [, reqId, invokeId] = invoke as unknown as [string, string, string];
    const too = `the node's result was ${size} bytes, over the ${limit} bytes this deployment takes in one frame (DEVICE_MAX_FRAME_BYTES)`;
    this.write(ws, responseError(reqId, { code: "PAYLOAD_TOO_LARGE", message: too }));
    const requestId = invokeId.endsWith(POSTER_SUFFIX) ? invokeId.slice(0, -POSTER_SUFFIX.length) : invokeId;
    const row = this.d.ledger.get(requestId);
    if (!row) return null;
    const outcome =
      this.clips.withoutPoster(requestId, `the still was too big: ${too}`, Date.now()) ??
      ({
        status: "error",
        tool: row.tool,
        error: `${too}. Ask for less (a shorter clip: a smaller durationMs), or an admin raises DEVICE_MAX_FRAME_BYTES (at most 32 MiB).`,
        error_type: "execution_failed",
      } satisfies ToolOutcome);
    return { ok: true, value: { type: "result", request_id: requestId, ...outcome } as DeviceFrame };
  }

  /** A node sends no pings, only its host stats every 60 s: it gets the longer allowance. */
  silenceAllowed(allowedMs: number): number {
    return Math.max(allowedMs, NODE_SILENCE_MS);
  }
}
