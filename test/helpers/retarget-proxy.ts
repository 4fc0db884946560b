import { startForwardingProxy } from "./forwarding-proxy.js";

/**
 * A loopback HTTP proxy whose target is set after it starts: the worker is configured with this
 * proxy's fixed URL (`MCP_SERVERS` is read at start), while a server it should reach gets its
 * address later (each MCP conformance scenario starts its own server on a new port). Bodies and
 * SSE streams pass unbuffered; Host is the target's. Without a target it answers 503.
 */
export type RetargetProxy = { url: string; retarget: (target: string | null) => void; stop: () => Promise<void> };

export async function startRetargetProxy(): Promise<RetargetProxy> {
  let to: URL | null = null;
  const proxy = await startForwardingProxy((req) => {
    if (!to) return "no target yet";
    return {
      host: to.hostname,
      port: to.port,
      // The target's path in place of ours: the scenario's server may not serve /mcp.
      path: `${to.pathname}${new URL(req.url ?? "/", "http://x").search}`,
      headers: { ...req.headers, host: to.host },
    };
  });
  return {
    ...proxy,
    retarget: (target) => {
      to = target ? new URL(target) : null;
    },
  };
}
