import type { HubFrame } from "@edgeloop/protocol";
import { log } from "../../../runtime/log.js";
import { CLOSE } from "./close-codes.js";

/** What a socket carries through hibernation. */
export type SocketAttachment = {
  agent_id: string;
  hello: boolean;
  bad_frames: number;
  connected_at: number;
  /** "env" for a DEVICE_TOKENS token, else the id of the issued token it authenticated with */
  token_id: string;
  last_frame_at: number;
};

/** How stale the last-frame time kept in a socket's attachment may get (it only matters after hibernation). */
const ATTACHMENT_REFRESH_MS = 5_000;
const MAX_BAD_FRAMES = 5;

/**
 * A hub frame in another wire format for some sockets (OpenClaw nodes): the text to send, undefined
 * to send the frame as it is, null when that socket has no use for it, false when it cannot take it.
 */
export type FrameAdapter = (ws: WebSocket, frame: HubFrame) => string | null | false | undefined;

/**
 * The device's WebSocket, held through the hibernation API: one live socket per device (a new
 * connection replaces the old one), what each socket carries through hibernation, when it last
 * showed it is alive, and the limit on bad frames.
 */
export class DeviceSockets {
  /** when each socket last sent a frame; the attachment copy is refreshed only now and then */
  private readonly lastFrameAt = new WeakMap<WebSocket, number>();
  /**
   * Each socket's attachment as last written or read by this instance: this object is its only
   * writer, so a frame needs no deserialization (a structured-clone read per tool result). Lost
   * with the instance; after a wake from hibernation the first frame reads it again.
   */
  private readonly attachments = new WeakMap<WebSocket, SocketAttachment>();
  /** the socket that said hello, while this instance lives (see `live`) */
  private helloSocket: WebSocket | null = null;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly adapt?: FrameAdapter,
  ) {}

  /** Accept a new connection for `agentId`, closing any older one; returns the client's end. */
  accept(agentId: string, tokenId: string, now: number): WebSocket {
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
    this.attach(server, attachment);
    return pair[0];
  }

  /** The socket's attachment, read from the socket only when this instance has not seen it. */
  attachment(ws: WebSocket): SocketAttachment | null {
    const known = this.attachments.get(ws);
    if (known) return known;
    const att = ws.deserializeAttachment() as SocketAttachment | null;
    if (att) this.attachments.set(ws, att);
    return att;
  }

  /** Written through this instance's copy: whoever writes an attachment goes through here. */
  attach(ws: WebSocket, att: SocketAttachment): void {
    ws.serializeAttachment(att);
    this.attachments.set(ws, att);
  }

  /** A frame arrived: the socket is alive. Returns its attachment. */
  noteFrame(ws: WebSocket, now: number): SocketAttachment {
    let att = this.attachment(ws) as SocketAttachment;
    this.lastFrameAt.set(ws, now);
    // The attachment outlives hibernation, when the in-memory time is lost. Rewriting it on every
    // frame cost each tool result a serialization; a copy a few seconds old is as good for a
    // heartbeat allowance of tens of seconds.
    if (now - att.last_frame_at > ATTACHMENT_REFRESH_MS) {
      att = { ...att, last_frame_at: now };
      this.attach(ws, att);
    }
    return att;
  }

  /** The socket said hello: from now on it gets commands. */
  helloFrom(ws: WebSocket, att: SocketAttachment): void {
    // Read again: whoever let the socket in (an OpenClaw node's connect) may have added to it.
    this.attach(ws, { ...(this.attachment(ws) ?? att), hello: true });
    this.helloSocket = ws;
  }

  /** The device's socket once it said hello, found by a scan only after a wake from hibernation or a reconnect. */
  live(): WebSocket | null {
    if (this.helloSocket?.readyState === WebSocket.OPEN) return this.helloSocket;
    this.helloSocket = null;
    for (const ws of this.ctx.getWebSockets()) {
      const att = this.attachment(ws);
      if (att?.hello && ws.readyState === WebSocket.OPEN) {
        this.helloSocket = ws;
        return ws;
      }
    }
    return null;
  }

  /** Every socket with its attachment (heartbeat checks, token revocation). */
  all(): { ws: WebSocket; att: SocketAttachment | null }[] {
    return this.ctx.getWebSockets().map((ws) => ({ ws, att: this.attachment(ws) }));
  }

  /** Closes the sockets that signed in with a revoked token; how many it closed. */
  closeRevoked(tokenId: string): number {
    let closed = 0;
    for (const { ws, att } of this.all()) {
      if (att?.token_id !== tokenId) continue;
      ws.close(CLOSE.TOKEN_REVOKED.code, CLOSE.TOKEN_REVOKED.reason);
      closed++;
    }
    return closed;
  }

  send(ws: WebSocket, frame: HubFrame): boolean {
    try {
      const adapted = this.adapt?.(ws, frame);
      if (adapted === false) return false;
      if (adapted !== null) ws.send(adapted ?? JSON.stringify(frame));
      return true;
    } catch (e) {
      log("warn", "send to device failed", { error: String(e) });
      return false;
    }
  }

  /** Refuse a frame, telling the device why; too many bad frames close the socket. */
  reject(ws: WebSocket, att: SocketAttachment, reason: string, requestId?: string): void {
    const bad = att.bad_frames + 1;
    this.attach(ws, { ...att, bad_frames: bad });
    log("warn", "frame rejected", { agent_id: att.agent_id, reason, request_id: requestId });
    this.send(ws, { type: "rejected", reason, ...(requestId ? { request_id: requestId } : {}) });
    if (bad >= MAX_BAD_FRAMES) ws.close(CLOSE.TOO_MANY_BAD_FRAMES.code, CLOSE.TOO_MANY_BAD_FRAMES.reason);
  }

  /** When the socket last showed it is alive: a frame, or a ping the runtime answered without waking us. */
  lastAlive(ws: WebSocket): number {
    const att = this.attachment(ws) as SocketAttachment;
    const pinged = this.ctx.getWebSocketAutoResponseTimestamp(ws)?.getTime() ?? 0;
    return Math.max(pinged, this.lastFrameAt.get(ws) ?? 0, att.last_frame_at ?? 0, att.connected_at);
  }
}
