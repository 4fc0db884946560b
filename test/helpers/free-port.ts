import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * A port below the kernel's ephemeral range that is free now. Ports the kernel hands out (a
 * `listen(0)` stand-in, the local end of every outgoing connection) all come from that range, so
 * a worker restarted on its old port never finds a client's socket sitting on it — which a port
 * chosen by `listen(0)` did, in CI, once in a few hundred restarts.
 */
export async function freePort(): Promise<number> {
  const below = ephemeralLow();
  for (let tries = 0; tries < 50; tries++) {
    const port = below - 1 - Math.floor(Math.random() * (below - 10_000));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in 10000-${below - 1} after 50 tries`);
}

/** Whether a server could listen on 127.0.0.1:port at this moment. */
export function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 11_000 ? low : 32_768;
  } catch {
    return 32_768; // not Linux: the IANA dynamic range starts at 49152, so this stays below it too
  }
}
