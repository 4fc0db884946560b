import { log } from "../../../runtime/log.js";
import type { WireName } from "../wires/device-wire.js";
import { CLOSE } from "./close-codes.js";

/** What a socket carries through hibernation. */
export type SocketAttachment = {
  agent_id: string;
  /** the wire the socket was accepted on (wires/device-wire.ts): its frames go through that one */
  wire: WireName;
  hello: boolean;
  bad_frames: number;
  connected_at: number;
  /** "env" for a DEVICE_TOKENS token, else the id of the issued token it authenticated with */
  token_id: string;
  last_frame_at: number;
};

/** A close code and its reason (close-codes.ts, or a wire's own). */
export type SocketClose = { code: number; reason: string };

/** How stale the last-frame time kept in a socket's attachment may get (it only matters after hibernation). */
const ATTACHMENT_REFRESH_MS = 5_000;
const MAX_BAD_FRAMES = 5;

/**
 * The device's WebSocket, held through the hibernation API: one live socket per device (a new
 * connection replaces the old one), what each socket carries through hibernation, when it last
 * showed it is alive, and the limit on bad frames. Every write and close of a device's socket goes
 * through here, whatever its wire (`write`, `close`); what a frame looks like on the wire is the
 * wire's business (wires/).
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
  /** sockets this hub closed and reported to the registry itself (see `closeReported`) */
  private readonly reportedCloses = new WeakSet<WebSocket>();

  constructor(private readonly ctx: DurableObjectState) {}

  /** Accept a new socket with its attachment (which names its wire); both ends of the pair. */
  accept(attachment: SocketAttachment): { client: WebSocket; server: WebSocket } {
    const pair = new WebSocketPair();
    const server = pair[1];
    this.ctx.acceptWebSocket(server);
    this.attach(server, attachment);
    return { client: pair[0], server };
  }

  /** Close every socket: a device's new connection replaces the older ones. */
  replaceAll(): void {
    for (const old of this.ctx.getWebSockets()) this.close(old, CLOSE.REPLACED);
    this.helloSocket = null;
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

  /**
   * Every open socket with its attachment (heartbeat checks, token revocation, a wire's timers). A
   * socket the hub has closed stays among the object's sockets until the device answers the close,
   * which a hung device never does: it is left out, or each check would close it again and set the
   * alarm for a time already past (docs/architecture.md#device-liveness).
   */
  open(): { ws: WebSocket; att: SocketAttachment | null }[] {
    return this.ctx
      .getWebSockets()
      .filter((ws) => ws.readyState === WebSocket.OPEN)
      .map((ws) => ({ ws, att: this.attachment(ws) }));
  }

  /** Closes the sockets that signed in with a revoked token; how many it closed. */
  closeRevoked(tokenId: string): number {
    let closed = 0;
    for (const { ws, att } of this.open()) {
      if (att?.token_id !== tokenId) continue;
      this.closeReported(ws, CLOSE.TOKEN_REVOKED);
      closed++;
    }
    return closed;
  }

  /** Write one text frame, as the socket's wire encoded it; false when the socket would not take it. */
  write(ws: WebSocket, text: string): boolean {
    try {
      ws.send(text);
      return true;
    } catch (e) {
      log("warn", "send to device failed", { error: String(e) });
      return false;
    }
  }

  close(ws: WebSocket, close: SocketClose): void {
    ws.close(close.code, close.reason);
  }

  /**
   * Close a socket whose end the caller records and reports to the registry itself (a missed
   * heartbeat, a revoked token). The runtime still delivers the close to the hub once the device
   * answers it; that close then adds nothing, so the registry keeps why the device went offline.
   */
  closeReported(ws: WebSocket, close: SocketClose): void {
    this.reportedCloses.add(ws);
    this.close(ws, close);
  }

  /** Whether this socket's end was already recorded and reported (`closeReported`). */
  closeWasReported(ws: WebSocket): boolean {
    return this.reportedCloses.has(ws);
  }

  /** One more bad frame from this socket; true when that is one too many and it must be closed. */
  badFrame(ws: WebSocket, att: SocketAttachment): boolean {
    const bad = att.bad_frames + 1;
    this.attach(ws, { ...att, bad_frames: bad });
    return bad >= MAX_BAD_FRAMES;
  }

  /** When the socket last showed it is alive: a frame, or a ping the runtime answered without waking us. */
  lastAlive(ws: WebSocket): number {
    const att = this.attachment(ws) as SocketAttachment;
    const pinged = this.ctx.getWebSocketAutoResponseTimestamp(ws)?.getTime() ?? 0;
    return Math.max(pinged, this.lastFrameAt.get(ws) ?? 0, att.last_frame_at ?? 0, att.connected_at);
  }
}
