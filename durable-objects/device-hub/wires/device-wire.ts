import type { DeviceFrame, HubFrame, Parsed } from "@edgeloop/protocol";

/**
 * A device wire: one way a device's socket speaks to the hub (docs/architecture.md#device-wires).
 * The hub picks one when it accepts a socket and records it in the socket's attachment; from then
 * on every frame in and out of that socket goes through it, so the ledger, exactly-once, the audit
 * and the alarm are the hub's whatever the wire. A wire never writes to a socket itself: it writes
 * through the hub's sockets (sockets/device-sockets.ts), which hold the one `send` and `close`.
 */
export interface DeviceWire {
  readonly name: WireName;
  /**
   * Take a socket's upgrade for `agentId` (the worker checked the id and the upgrade): 101 with
   * the client's end, or a refusal. Each wire lets a socket in its own way.
   */
  accept(request: Request, agentId: string, now: number): Promise<Response>;
  /**
   * One text frame from a socket on this wire: the edgeloop frame the hub handles next, a frame
   * the hub refuses, or null when the wire has answered it itself.
   */
  decode(ws: WebSocket, text: string, now: number): Promise<Parsed<DeviceFrame> | null>;
  /**
   * A hub frame as this socket reads it: the text to write, null for a frame it has no use for
   * (sent, nothing written), false for one it cannot take (not sent).
   */
  encode(ws: WebSocket, frame: HubFrame): string | null | false;
  /** The socket closed: what the wire must do about the commands it was carrying. */
  closed(ws: WebSocket): Promise<void>;
  /** On the hub's alarm: what the wire's sockets need on a timer. */
  tick(now: number): Promise<void>;
  /** How long a socket on this wire may stay silent, given the hub's heartbeat allowance. */
  silenceAllowed(allowedMs: number): number;
  /**
   * A frame over DEVICE_MAX_FRAME_BYTES (`head`, its first characters): the result frame that ends
   * the call it answers with a clear error, when the wire can tell which call; else null, and the
   * hub refuses the frame as it does any bad one.
   */
  oversized?(ws: WebSocket, head: string, size: number, limit: number): Parsed<DeviceFrame> | null;
}

/** The wires a hub speaks: edgeloop's own frames (the agent, the MQTT bridge) and OpenClaw's gateway protocol. */
export const WIRE_NAMES = ["edgeloop", "openclaw"] as const;
export type WireName = (typeof WIRE_NAMES)[number];

/** The header the worker's socket routes name the wire with; only they set it (a client's is dropped). */
export const WIRE_HEADER = "x-edgeloop-wire";

/** The wire a socket's upgrade names, or null for none or an unknown one. Pure. */
export function wireNamed(value: string | null | undefined): WireName | null {
  return WIRE_NAMES.find((name) => name === value) ?? null;
}
