import type { HubFrame } from "@edgeloop/protocol";
import { log } from "../../../runtime/log.js";
import type { DeviceSockets, SocketAttachment } from "../sockets/device-sockets.js";
import { type DeviceWire, WIRE_HEADER, type WireName, wireNamed } from "./device-wire.js";

/**
 * The wires this hub speaks and which one each socket uses: the wire is picked once, when a
 * socket's upgrade comes in (`pick`), and read back from the socket's attachment after that
 * (`of`), so nothing else in the hub asks what kind of device it talks to.
 */
export class WireSet {
  constructor(
    private readonly sockets: DeviceSockets,
    private readonly wires: Readonly<Record<WireName, DeviceWire>>,
  ) {}

  /** The wire the worker's route named for this upgrade; null when it named none this hub speaks. */
  pick(request: Request): DeviceWire | null {
    const name = wireNamed(request.headers.get(WIRE_HEADER));
    return name ? this.wires[name] : null;
  }

  /** The wire a socket was accepted on. */
  of(ws: WebSocket): DeviceWire {
    return this.wires[this.sockets.attachment(ws)?.wire ?? "edgeloop"];
  }

  /** A hub frame to a socket, as its wire writes it; false when it was not sent. */
  send(ws: WebSocket, frame: HubFrame): boolean {
    let text: string | null | false;
    try {
      text = this.of(ws).encode(ws, frame);
    } catch (e) {
      log("warn", "send to device failed", { error: String(e) });
      return false;
    }
    if (text === false) return false;
    return text === null || this.sockets.write(ws, text);
  }

  /** How long this socket may stay silent before the heartbeat check closes it. */
  silenceAllowed(att: SocketAttachment | null, allowedMs: number): number {
    return att ? this.wires[att.wire].silenceAllowed(allowedMs) : allowedMs;
  }

  /** On the hub's alarm, each wire's own timers. */
  async tick(now: number): Promise<void> {
    for (const wire of Object.values(this.wires)) await wire.tick(now);
  }
}
