import {
  type DeviceFrame,
  type HelloFrame,
  type HubFrame,
  PING_FRAME,
  PONG_FRAME,
  parseHubFrame,
} from "@edgeloop/protocol/device-frames";
import WebSocket from "ws";
import { AUTH_CLOSE_CODES, authRetryDelay, backoffDelay } from "./backoff.js";
import type { Logger } from "./log.js";

export type ConnectionOptions = {
  url: string;
  agentId: string;
  token: string;
  heartbeatMs: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** a connection open this long counts as stable: the backoff starts over */
  stableAfterMs?: number;
  log: Logger;
  /** built at every connect: `held` changes as work comes and goes */
  hello: () => HelloFrame;
  /** after hello went out: re-send what the hub has not acknowledged */
  onOpen: () => void;
  onFrame: (frame: HubFrame) => void;
  random?: () => number;
};

export type ConnectionStats = { connects: number; badFrames: number; lastCloseCode: number | null };

/** `${url}/v1/devices/${agent_id}/connect`, http→ws and https→wss. */
export function connectUrl(url: string, agentId: string): string {
  const u = new URL(url.replace(/^http(s?):/, "ws$1:"));
  u.pathname = `${u.pathname.replace(/\/+$/, "")}/v1/devices/${encodeURIComponent(agentId)}/connect`;
  return u.toString();
}

/**
 * The device's one WebSocket to its hub: hello on open, every incoming frame validated, heartbeats,
 * and reconnects with backoff until `close()`.
 */
export class HubConnection {
  readonly stats: ConnectionStats = { connects: 0, badFrames: 0, lastCloseCode: null };
  private ws: WebSocket | null = null;
  private attempt = 0;
  private openedAt = 0;
  private lastHeard = 0;
  private heartbeat: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private authRefused = false;

  constructor(private readonly opts: ConnectionOptions) {}

  get isOpen(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  start(): void {
    this.connect();
  }

  /**
   * Sends if connected; false if not (results stay in the store and go out after reconnect).
   * Not validated again here: the agent builds these frames from typed values and from ids it
   * validated on the way in, and the hub validates every frame it receives. `json`: the frame
   * already as JSON (a result, as the journal wrote it), so it is not stringified twice.
   */
  send(frame: DeviceFrame, json?: string): boolean {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(json ?? JSON.stringify(frame));
    return true;
  }

  /** Close (1000, unless a code and reason say more) and stop reconnecting. */
  async close(code = 1000, reason = "agent shutting down"): Promise<void> {
    this.stopping = true;
    clearTimeout(this.reconnectTimer);
    this.stopHeartbeat();
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        ws.terminate();
        resolve();
      }, 2_000);
      ws.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(code, reason);
    });
  }

  private connect(): void {
    if (this.stopping) return;
    const url = connectUrl(this.opts.url, this.opts.agentId);
    this.authRefused = false;
    const ws = new WebSocket(url, {
      headers: { Authorization: `Bearer ${this.opts.token}` },
      handshakeTimeout: 15_000,
      // No permessage-deflate: frames are small JSON, and ws runs zlib on the thread pool for every
      // frame in and out, which put two extra hops into each tool call (outputs are capped anyway).
      perMessageDeflate: false,
    });
    this.ws = ws;
    ws.on("unexpected-response", (_req, res) => {
      const status = res.statusCode ?? 0;
      this.authRefused = status === 401 || status === 403;
      this.opts.log.error(this.authRefused ? "hub refused the agent's credentials" : "hub refused the connection", {
        http_status: status,
        hint: this.authRefused ? "check the agent id and EDGELOOP_TOKEN against the hub's device tokens" : undefined,
      });
      ws.terminate();
    });
    ws.on("open", () => this.onOpen(ws));
    ws.on("message", (data, isBinary) => this.onMessage(data, isBinary));
    ws.on("error", (err) => this.opts.log.warn("connection error", { error: err.message }));
    ws.on("close", (code, reason) => this.onClose(ws, code, reason.toString()));
  }

  private onOpen(ws: WebSocket): void {
    this.stats.connects++;
    this.openedAt = Date.now();
    this.lastHeard = Date.now();
    this.opts.log.info("connected", { url: connectUrl(this.opts.url, this.opts.agentId) });
    ws.send(JSON.stringify(this.opts.hello()));
    this.startHeartbeat(ws);
    this.opts.onOpen();
  }

  private onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    this.lastHeard = Date.now();
    const text = isBinary ? null : data.toString();
    if (text === PONG_FRAME) return;
    const parsed = text === null ? ({ ok: false, error: "binary frame" } as const) : parseHubFrame(text);
    if (!parsed.ok) {
      // A hub bug or a newer protocol: count it, keep the connection, never crash on it.
      this.stats.badFrames++;
      this.opts.log.warn("bad frame from hub ignored", { error: parsed.error, frame: text?.slice(0, 200) });
      return;
    }
    if (parsed.value.type === "rejected") {
      this.opts.log.warn("hub rejected a frame", { reason: parsed.value.reason, request_id: parsed.value.request_id });
      return;
    }
    this.opts.onFrame(parsed.value);
  }

  private onClose(ws: WebSocket, code: number, reason: string): void {
    if (this.ws === ws) this.ws = null;
    this.stopHeartbeat();
    this.stats.lastCloseCode = code;
    if (this.stopping) return;
    const stable = this.openedAt > 0 && Date.now() - this.openedAt >= (this.opts.stableAfterMs ?? 10_000);
    if (stable) this.attempt = 0;
    this.openedAt = 0;
    let delay: number;
    if (AUTH_CLOSE_CODES.has(code) || this.authRefused) {
      delay = authRetryDelay(this.opts.reconnectMaxMs);
      this.opts.log.error(
        code === 4003
          ? "hub closed the connection: device forbidden (4003)"
          : "hub closed the connection: authentication failed",
        {
          close_code: code,
          reason,
          retry_in_ms: delay,
        },
      );
    } else {
      delay = backoffDelay(this.attempt, this.opts.reconnectMinMs, this.opts.reconnectMaxMs, this.opts.random);
      this.opts.log.warn("disconnected", { close_code: code, reason, retry_in_ms: delay });
    }
    this.attempt++;
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  private startHeartbeat(ws: WebSocket): void {
    this.stopHeartbeat();
    const interval = this.opts.heartbeatMs;
    this.heartbeat = setInterval(() => {
      // The hub answers PING with PONG (auto-response). Two silent intervals: the link is dead
      // even if TCP has not noticed (NAT timeouts, a Wi-Fi drop); start over.
      if (Date.now() - this.lastHeard > 2 * interval) {
        this.opts.log.warn("no pong from hub; reconnecting", { silent_ms: Date.now() - this.lastHeard });
        ws.terminate();
        return;
      }
      if (ws.readyState === WebSocket.OPEN) ws.send(PING_FRAME);
    }, interval);
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}
