// A throwaway HTTP server on 127.0.0.1 for the web tool tests; records the requests it got.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type SeenRequest = { url: string; headers: IncomingHttpHeaders };

export type LocalServer = {
  origin: string;
  requests: SeenRequest[];
  close: () => Promise<void>;
};

export async function startServer(
  handle: (url: URL, res: ServerResponse, headers: IncomingHttpHeaders) => void,
): Promise<LocalServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? "", headers: req.headers });
    handle(new URL(req.url ?? "/", "http://127.0.0.1"), res, req.headers);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
