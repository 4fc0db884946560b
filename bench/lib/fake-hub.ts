import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { DeviceFrame, parseJson, type ResultFrame, type ToolCommandFrame } from "@edgeloop/protocol";
import { type WebSocket, WebSocketServer } from "ws";

/**
 * A stand-in hub on loopback for measuring the device agent alone: it accepts the agent's socket,
 * answers `GET /v1/devices/:id` (so startAgent sees it online), sends real v1 `command` frames and
 * times each until its `result` frame arrives (before this hub parses it), then acks it as the
 * real hub does.
 */
export type FakeHub = {
  url: string;
  run: (tool: string, requestId: string, timeoutMs?: number) => Promise<{ result: ResultFrame; ms: number }>;
  /** resolves with when the `hello` of `agentId` arrived (performance.now()), now or later */
  hello: (agentId: string) => Promise<number>;
  close: () => Promise<void>;
};

/** The v1 command frame for a tool with no parameters, as the real hub sends it. */
export function toolCommand(tool: string, requestId: string, timeoutMs = 30_000): ToolCommandFrame {
  return {
    type: "command",
    command: "tool",
    request_id: requestId,
    payload: { tool, parameters: {}, timeout_ms: timeoutMs, request_id: requestId },
  };
}

export async function startFakeHub(): Promise<FakeHub> {
  let socket: WebSocket | null = null;
  /** what waits for each request's result, given the result and when its frame arrived */
  const pending = new Map<string, (r: ResultFrame, arrivedAt: number) => void>();
  const hellos = new Map<string, number>();
  const helloWaiters = new Map<string, (at: number) => void>();
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ online: socket !== null }));
  });
  const wss = new WebSocketServer({ server, maxPayload: 64 * 1024 * 1024 });
  wss.on("connection", (ws) => {
    ws.on("message", (data) => {
      // The agent's time ends when its frame is here; parsing and acking it is the hub's work.
      const arrivedAt = performance.now();
      const parsed = parseJson(DeviceFrame, data.toString());
      if (!parsed.ok) return;
      const frame = parsed.value;
      if (frame.type === "hello") {
        socket = ws;
        hellos.set(frame.agent_id, arrivedAt);
        helloWaiters.get(frame.agent_id)?.(arrivedAt);
      }
      if (frame.type !== "result") return;
      ws.send(JSON.stringify({ type: "ack", request_ids: [frame.request_id] }));
      pending.get(frame.request_id)?.(frame, arrivedAt);
      pending.delete(frame.request_id);
    });
    ws.on("close", () => {
      if (socket === ws) socket = null;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    run: (tool, requestId, timeoutMs = 30_000) => {
      if (!socket) return Promise.reject(new Error("no agent connected"));
      const text = JSON.stringify(toolCommand(tool, requestId, timeoutMs));
      const started = performance.now();
      const ws = socket;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no result for ${requestId}`)), timeoutMs + 5_000);
        pending.set(requestId, (result, arrivedAt) => {
          clearTimeout(timer);
          resolve({ result, ms: arrivedAt - started });
        });
        ws.send(text);
      });
    },
    hello: (agentId) => {
      const at = hellos.get(agentId);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise((resolve) => helloWaiters.set(agentId, resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
