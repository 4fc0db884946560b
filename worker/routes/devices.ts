import { Hono } from "hono";
import { Identifier } from "../../protocol/index.js";
import { bearerToken, matchesAny } from "../auth.js";
import { readConfig } from "../config.js";
import type { Env } from "../env.js";
import { requireToken } from "../middleware/require-token.js";
import { problem } from "../problem.js";

export const devices = new Hono<{ Bindings: Env }>();

function hubFor(env: Env, agentId: string) {
  return env.DEVICE_HUB.get(env.DEVICE_HUB.idFromName(agentId));
}

/** The device WebSocket. Authenticated with that device's own token; the hub takes the socket. */
devices.get("/:agent_id/connect", async (c) => {
  const agentId = c.req.param("agent_id");
  if (!Identifier.safeParse(agentId).success) return problem(c, 400, "Invalid agent id");
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
    return problem(c, 426, "Upgrade required", "connect with a WebSocket", {}, { upgrade: "websocket" });
  }
  const cfg = readConfig(c.env);
  if (!cfg.ok) return problem(c, 500, "Server misconfigured", cfg.error);
  const token = bearerToken(c.req.header("authorization"));
  const accepted = cfg.config.DEVICE_TOKENS.get(agentId) ?? [];
  if (!token || accepted.length === 0 || !(await matchesAny(token, accepted))) {
    return problem(c, 401, "Unauthorized", "invalid device token for this agent id", {}, { "www-authenticate": "Bearer" });
  }
  const headers = new Headers(c.req.raw.headers);
  headers.set("x-edgeloop-agent-id", agentId);
  headers.delete("authorization");
  return hubFor(c.env, agentId).fetch(new Request(c.req.raw.url, { headers, method: "GET" }));
});

devices.get("/:agent_id", requireToken("ADMIN_TOKEN", "API_TOKEN"), async (c) => {
  const agentId = c.req.param("agent_id");
  if (!Identifier.safeParse(agentId).success) return problem(c, 400, "Invalid agent id");
  return c.json(await hubFor(c.env, agentId).getDevice(agentId));
});

