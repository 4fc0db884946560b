import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { type WebSocket, WebSocketServer } from "ws";

/**
 * The socket hop of a device call with no device work in it: a loopback WebSocket from this process
 * to a process that only echoes (echo-peer.mjs), timed like the stand-in hub times the agent (from
 * before the send to the frame's arrival). On these VMs a round trip costs ~0.07 ms back to back but
 * 0.4-0.75 ms after a few idle milliseconds, when both processes must be woken, and the agent's calls
 * are paced like that, so this is sampled at the same pace, alternating with them.
 */
export type SocketHop = { roundTrip: (text: string) => Promise<number>; close: () => Promise<void> };

export async function startSocketHop(): Promise<SocketHop> {
  const server = createServer();
  const wss = new WebSocketServer({ server });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const connected = new Promise<WebSocket>((resolve) => wss.once("connection", resolve));
  const peer = spawn(
    process.execPath,
    [
      fileURLToPath(new URL("./echo-peer.mjs", import.meta.url)),
      `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const exited = new Promise<never>((_, reject) =>
    peer.once("exit", (code) => reject(new Error(`echo peer exited ${code}`))),
  );
  exited.catch(() => undefined); // its exit after close() is expected
  const ws = await Promise.race([connected, exited]);
  let waiting: ((arrivedAt: number) => void) | null = null;
  ws.on("message", () => {
    const arrivedAt = performance.now();
    waiting?.(arrivedAt);
    waiting = null;
  });
  return {
    roundTrip: (text) => {
      const started = performance.now();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("echo peer: no answer in 10 s")), 10_000);
        waiting = (arrivedAt) => {
          clearTimeout(timer);
          resolve(arrivedAt - started);
        };
        ws.send(text);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        peer.kill();
        for (const c of wss.clients) c.terminate();
        wss.close();
        server.close(() => resolve());
      }),
  };
}
