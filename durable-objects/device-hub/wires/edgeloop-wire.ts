import type { DeviceFrame, HubFrame, Parsed } from "@edgeloop/protocol";
import { log } from "../../../runtime/log.js";
import { problemResponse } from "../../../runtime/problem.js";
import type { DeviceSockets } from "../sockets/device-sockets.js";
import type { DeviceStore } from "../storage/device-record.js";
import type { DeviceTokens } from "../storage/device-tokens.js";
import type { DeviceWire } from "./device-wire.js";
import { decodeEdgeloopFrame, encodeEdgeloopFrame } from "./edgeloop-codec.js";

type Deps = { sockets: DeviceSockets; tokens: DeviceTokens; store: DeviceStore };

/**
 * edgeloop's own wire: the agent's socket, or the MQTT bridge's on a device's behalf. The frames
 * are the protocol's as they are; the device proved itself before the upgrade, so the socket is
 * let in with its token, and a new one replaces the old.
 */
export class EdgeloopWire implements DeviceWire {
  readonly name = "edgeloop" as const;

  constructor(private readonly d: Deps) {}

  /**
   * The worker either vouches for the token (`x-edgeloop-token-id: env`, a DEVICE_TOKENS token) or
   * passes its SHA-256 (`x-edgeloop-token-sha256`) for this hub to match against the tokens it issued.
   */
  async accept(request: Request, agentId: string, now: number): Promise<Response> {
    let tokenId = request.headers.get("x-edgeloop-token-id") === "env" ? "env" : null;
    const hash = request.headers.get("x-edgeloop-token-sha256");
    if (!tokenId && hash) tokenId = this.d.tokens.match(hash, now);
    // Nothing is written for a refused token (the worker counts the refusal), so guessing at
    // agent ids cannot fill storage.
    if (!tokenId) {
      const detail = "invalid device token for this agent id";
      return problemResponse(401, "Unauthorized", detail, {}, { "www-authenticate": "Bearer" });
    }
    this.d.store.rememberAgentId(agentId);
    this.d.sockets.replaceAll();
    const { client } = this.d.sockets.accept({
      agent_id: agentId,
      wire: this.name,
      hello: false,
      bad_frames: 0,
      connected_at: now,
      token_id: tokenId,
      last_frame_at: now,
    });
    log("info", "device connected", { agent_id: agentId, token_id: tokenId });
    return new Response(null, { status: 101, webSocket: client });
  }

  async decode(_ws: WebSocket, text: string): Promise<Parsed<DeviceFrame>> {
    return decodeEdgeloopFrame(text);
  }

  encode(_ws: WebSocket, frame: HubFrame): string {
    return encodeEdgeloopFrame(frame);
  }

  /** The agent keeps its results and work across a reconnect, so nothing ends with the socket. */
  async closed(): Promise<void> {}

  /** Heartbeats are pings the runtime answers; the hub's own checks see to them. */
  async tick(): Promise<void> {}

  silenceAllowed(allowedMs: number): number {
    return allowedMs;
  }
}
