// A real HTTP server on 127.0.0.1 for the webhook tool tests. Each request is recorded with its raw
// body and answered by the next scripted reply (the last one repeats).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type ReceivedRequest = { method: string; url: string; headers: IncomingHttpHeaders; body: string; at: number };
export type Reply = (res: ServerResponse, req: ReceivedRequest) => void;

export type WebhookServer = {
  url: string;
  received: ReceivedRequest[];
  close: () => Promise<void>;
};

export async function startWebhookServer(replies: Reply[]): Promise<WebhookServer> {
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const request = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      received.push(request);
      const reply = replies[Math.min(received.length - 1, replies.length - 1)]!;
      reply(res, request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const json =
  (status: number, value: unknown, headers: Record<string, string> = {}): Reply =>
  (res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(value));
  };

export const text =
  (status: number, body: string, headers: Record<string, string> = {}): Reply =>
  (res) => {
    res.writeHead(status, { "content-type": "text/plain", ...headers });
    res.end(body);
  };

/** Never answers (until the server closes): for timeouts. */
export const hang: Reply = () => undefined;
