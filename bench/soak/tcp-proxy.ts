/**
 * A TCP proxy between the devices (agents' and the bridge's WebSockets) and the runtime, so the
 * soak's chaos driver can drop those connections while both ends stay alive: `cut` resets a share
 * of the live connections (RST both ways), which is what a Wi-Fi drop or a NAT that forgets a
 * flow looks like to each side; `stall` stops forwarding without closing (a half-open link, seen
 * only by heartbeats), then resets. The runtime can be killed and restarted on the same port behind it.
 */
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";

export type CuttingProxy = {
  port: number;
  /** http://127.0.0.1:port, the URL devices are given */
  url: string;
  /** resets each live connection with probability `share` (1 = all); returns how many were cut */
  cut: (share: number, random: () => number) => number;
  /**
   * Stops forwarding on each live connection with probability `share`, without closing it (a
   * half-open link: both ends think it is up), and resets those after `ms`; returns how many.
   */
  stall: (share: number, random: () => number, ms: number) => number;
  live: () => number;
  close: () => Promise<void>;
};

export async function startCuttingProxy(targetPort: number): Promise<CuttingProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  /** stalled pairs: out of `pairs` (not cut again), still reset on close */
  const stalled = new Set<{ client: Socket; upstream: Socket }>();
  const server: Server = createServer((client) => {
    const upstream = tcpConnect(targetPort, "127.0.0.1");
    const pair = { client, upstream };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end);
    upstream.on("error", end);
    client.on("close", end);
    upstream.on("close", end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("proxy has no port");
  return {
    port: address.port,
    url: `http://127.0.0.1:${address.port}`,
    cut: (share, random) => {
      let n = 0;
      for (const pair of [...pairs]) {
        if (share < 1 && random() >= share) continue;
        pairs.delete(pair);
        pair.client.resetAndDestroy();
        pair.upstream.resetAndDestroy();
        n++;
      }
      return n;
    },
    stall: (share, random, ms) => {
      let n = 0;
      for (const pair of [...pairs]) {
        if (share < 1 && random() >= share) continue;
        pairs.delete(pair);
        stalled.add(pair);
        // Half-open: nothing passes, and one end closing is not told to the other either.
        for (const s of [pair.client, pair.upstream]) {
          s.removeAllListeners("close");
          s.removeAllListeners("error");
          s.on("error", () => {});
        }
        pair.client.unpipe(pair.upstream);
        pair.upstream.unpipe(pair.client);
        pair.client.pause();
        pair.upstream.pause();
        setTimeout(() => {
          stalled.delete(pair);
          pair.client.resetAndDestroy();
          pair.upstream.resetAndDestroy();
        }, ms).unref();
        n++;
      }
      return n;
    },
    live: () => pairs.size,
    close: async () => {
      for (const pair of [...pairs, ...stalled]) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      pairs.clear();
      stalled.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
