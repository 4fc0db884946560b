import { startForwardingProxy } from "./forwarding-proxy.js";

/**
 * A loopback HTTP proxy that adds `Authorization: Bearer <token>` and passes everything else
 * through as sent (Host and Origin included, bodies and SSE streams unbuffered): for clients that
 * cannot be given a token, such as the MCP conformance suite, against a worker that requires one.
 */
export type BearerProxy = { url: string; stop: () => Promise<void> };

export async function startBearerProxy(target: string, token: string): Promise<BearerProxy> {
  const to = new URL(target);
  return startForwardingProxy((req) => ({
    host: to.hostname,
    port: to.port,
    path: req.url,
    headers: { ...req.headers, authorization: `Bearer ${token}` },
  }));
}
