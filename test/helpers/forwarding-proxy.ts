import { createServer, type IncomingMessage, type RequestOptions, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback HTTP proxy: each request goes where `route` says (host, port, path, headers), or is
 * answered 503 with `route`'s refusal. Bodies and SSE streams pass unbuffered both ways. The
 * bearer and retarget proxies are this with their own route.
 */
export async function startForwardingProxy(
  route: (req: IncomingMessage) => RequestOptions | string,
): Promise<{ url: string; stop: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const to = route(req);
    if (typeof to === "string") return void res.writeHead(503).end(to);
    const upstream = request({ ...to, method: req.method }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
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
