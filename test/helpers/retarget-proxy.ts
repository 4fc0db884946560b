import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback HTTP proxy whose target is set after it starts: the worker is configured with this
 * proxy's fixed URL (`MCP_SERVERS` is read at start), while a server it should reach gets its
 * address later (each MCP conformance scenario starts its own server on a new port). Bodies and
 * SSE streams pass unbuffered; Host is the target's. Without a target it answers 503.
 */
export type RetargetProxy = { url: string; retarget: (target: string | null) => void; stop: () => Promise<void> };

export async function startRetargetProxy(): Promise<RetargetProxy> {
  let to: URL | null = null;
  const server: Server = createServer((req, res) => {
    if (!to) return void res.writeHead(503).end("no target yet");
    const target = to;
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        // The target's path in place of ours: the scenario's server may not serve /mcp.
        path: `${target.pathname}${new URL(req.url ?? "/", "http://x").search}`,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", (e) => res.destroy(e));
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    retarget: (target) => {
      to = target ? new URL(target) : null;
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
