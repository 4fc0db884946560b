import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback HTTP proxy that adds `Authorization: Bearer <token>` and passes everything else
 * through as sent (Host and Origin included, bodies and SSE streams unbuffered): for clients that
 * cannot be given a token, such as the MCP conformance suite, against a worker that requires one.
 */
export type BearerProxy = { url: string; stop: () => Promise<void> };

export async function startBearerProxy(target: string, token: string): Promise<BearerProxy> {
  const to = new URL(target);
  const server: Server = createServer((req, res) => {
    const upstream = request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
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
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
