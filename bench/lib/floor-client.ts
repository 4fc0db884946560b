import { performance } from "node:perf_hooks";
import WebSocket from "ws";

/** A WebSocket to one FloorDO, with request/answer round trips timed on this side. */
export class FloorSocket {
  private waiting: ((data: string) => void)[] = [];

  private constructor(private readonly ws: WebSocket) {
    // The DO answers in order on one socket, so answers match requests first-in first-out.
    ws.on("message", (data) => this.waiting.shift()?.(data.toString()));
  }

  static async open(wsUrl: string, name: string): Promise<FloorSocket> {
    // Like the agent: no permessage-deflate.
    const ws = new WebSocket(`${wsUrl}?name=${encodeURIComponent(name)}`, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    return new FloorSocket(ws);
  }

  /** Sends one frame and resolves with the answer and the round trip in ms. */
  request(text: string): Promise<{ answer: string; ms: number }> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("floor socket: no answer in 30 s")), 30_000);
      this.waiting.push((answer) => {
        clearTimeout(timer);
        resolve({ answer, ms: performance.now() - started });
      });
      this.ws.send(text);
    });
  }

  close(): void {
    this.ws.close();
  }
}

/** `n` sequential echo round trips of a small frame (after `warmup` unmeasured ones). */
export async function echoRoundTrips(socket: FloorSocket, n: number, warmup = 10): Promise<number[]> {
  const frame = JSON.stringify({
    type: "result",
    request_id: "floor",
    status: "success",
    tool: "bench_ok",
    result: "ok\n",
  });
  for (let i = 0; i < warmup; i++) await socket.request(frame);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await socket.request(frame)).ms);
  return out;
}

/** One WebSocket round trip in which the DO makes one HTTP request to `url` with `body`. */
export async function echoPlusFetch(socket: FloorSocket, url: string, body: string): Promise<number> {
  const { answer, ms } = await socket.request(`fetch ${JSON.stringify({ url, body })}`);
  if (!answer.startsWith("fetched 200 ")) throw new Error(`floor fetch failed: ${answer}`);
  return ms;
}

/**
 * Raw echo throughput: `sockets` sockets, each to its own DO, each keeping `window` frames in
 * flight, until `total` frames have come back. Frames per second. `frame`: another request the
 * floor object knows (`write 1`: after a one-row commit; `rpc`: after an RPC to an object that
 * commits one row) instead of a command frame to echo.
 */
export async function echoThroughput(
  wsUrl: string,
  sockets: number,
  window: number,
  total: number,
  frame = JSON.stringify({
    type: "command",
    command: "tool",
    request_id: "floor",
    payload: { tool: "bench_ok", parameters: {}, timeout_ms: 10000, request_id: "floor" },
  }),
): Promise<{ perSecond: number; frames: number; ms: number }> {
  const open = await Promise.all(Array.from({ length: sockets }, (_, i) => FloorSocket.open(wsUrl, `throughput-${i}`)));
  let sent = 0;
  const started = performance.now();
  const lane = async (s: FloorSocket) => {
    while (sent < total) {
      sent++;
      await s.request(frame);
    }
  };
  await Promise.all(open.flatMap((s) => Array.from({ length: window }, () => lane(s))));
  const ms = performance.now() - started;
  for (const s of open) s.close();
  return { perSecond: (sent / ms) * 1000, frames: sent, ms };
}

/**
 * The fleet's floor: the step floor's work (a WebSocket round trip in which the DO makes the model
 * request) at the fleet's concurrency: `sockets` sockets, each to its own DO, each with `window`
 * lanes of sequential requests, until `total` have come back. Calls per second and round trips.
 */
export async function echoPlusFetchThroughput(
  wsUrl: string,
  sockets: number,
  window: number,
  total: number,
  url: string,
  body: string,
): Promise<{ perSecond: number; calls: number; ms: number; roundTrips: number[] }> {
  const open = await Promise.all(
    Array.from({ length: sockets }, (_, i) => FloorSocket.open(wsUrl, `fleet-floor-${i}`)),
  );
  const roundTrips: number[] = [];
  let sent = 0;
  const started = performance.now();
  const lane = async (s: FloorSocket) => {
    while (sent < total) {
      sent++;
      roundTrips.push(await echoPlusFetch(s, url, body));
    }
  };
  try {
    await Promise.all(open.flatMap((s) => Array.from({ length: window }, () => lane(s))));
  } finally {
    for (const s of open) s.close();
  }
  const ms = performance.now() - started;
  return { perSecond: (sent / ms) * 1000, calls: sent, ms, roundTrips };
}
