import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback proxy in front of the scripted model that counts the bytes each chat request sends
 * (headers and body, as they arrive), so "bytes sent to the model" is counted, not estimated. It
 * forwards everything unchanged and streams the answer back.
 */
export type ModelRequest = { body_bytes: number; header_bytes: number; body: unknown };
export type ModelProxy = { url: string; requests: () => ModelRequest[]; close: () => Promise<void> };

export async function startModelProxy(targetBaseUrl: string): Promise<ModelProxy> {
  const target = new URL(targetBaseUrl);
  const seen: ModelRequest[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (p: Buffer) => parts.push(p));
    req.on("end", () => {
      const raw = Buffer.concat(parts);
      const headerBytes = req.rawHeaders.reduce((n, h) => n + Buffer.byteLength(h) + 2, 0);
      if (req.url?.endsWith("/chat/completions")) {
        let body: unknown = null;
        try {
          body = JSON.parse(raw.toString("utf8"));
        } catch {
          // counted all the same
        }
        seen.push({ body_bytes: raw.length, header_bytes: headerBytes, body });
      }
      const upstream = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on("error", () => {
        res.writeHead(502);
        res.end();
      });
      upstream.end(raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    requests: () => [...seen],
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
