import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The far end of the tools that run inside a Durable Object in the peer scenario's survival runs
 * (edgeloop's webhook tool `slow_hook`, the Agents SDK peer's `slow_hook`): it records every
 * arrival with its call id (`tool_call_id` in the body) and idempotency key, waits `delayMs`, and
 * answers `hooked`. A runtime killed meanwhile leaves the arrival recorded, so a re-run shows up.
 */
export type HookArrival = { at: number; tool_call_id: string; idempotency_key: string | null; body: string };
export type HookServer = {
  url: string;
  delayMs: number;
  arrivals: () => HookArrival[];
  close: () => Promise<void>;
};

export async function startHookServer(delayMs = 1500): Promise<HookServer> {
  const arrivals: HookArrival[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (p: Buffer) => parts.push(p));
    req.on("end", () => {
      const body = Buffer.concat(parts).toString("utf8");
      let id = "";
      try {
        id = String((JSON.parse(body) as { tool_call_id?: unknown }).tool_call_id ?? "");
      } catch {
        // recorded without an id
      }
      const key = req.headers["idempotency-key"];
      arrivals.push({ at: Date.now(), tool_call_id: id, idempotency_key: typeof key === "string" ? key : null, body });
      setTimeout(() => {
        if (!res.destroyed) res.end("hooked");
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    delayMs,
    arrivals: () => [...arrivals],
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
