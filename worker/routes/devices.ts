import { Identifier } from "@edgeloop/protocol";
import { Hono } from "hono";
import { hubFor, registryOf } from "../../durable-objects/addresses.js";
import { mayReach } from "../../runtime/access.js";
import { sha256Hex } from "../../runtime/digest.js";
import { problemResponse } from "../../runtime/problem.js";
import { bearerToken, matchesAny } from "../auth.js";
import { readConfig } from "../config.js";
import type { Env } from "../env.js";
import { countRejections } from "../middleware/count-rejections.js";
import { requireToken } from "../middleware/require-token.js";
import { type AppEnv, authorize, principalOf } from "../principal.js";

export const devices = new Hono<AppEnv>();

const validId = (id: string) => Identifier.safeParse(id).success;

/**
 * The device WebSocket, authenticated with one of that device's own tokens: a `DEVICE_TOKENS`
 * entry (checked here) or a token issued through the admin API (its SHA-256 is checked by the
 * device's hub, which is the only place it is stored). A token of another device never matches:
 * each hub holds only its own device's tokens.
 */
devices.get("/:agent_id/connect", countRejections("GET /v1/devices/:agent_id/connect"), async (c) => {
  const agentId = c.req.param("agent_id");
  if (!validId(agentId)) return problemResponse(400, "Invalid agent id");
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
    return problemResponse(426, "Upgrade required", "connect with a WebSocket", {}, { upgrade: "websocket" });
  }
  const cfg = readConfig(c.env);
  if (!cfg.ok) return problemResponse(500, "Server misconfigured", cfg.error);
  const token = bearerToken(c.req.header("authorization"));
  if (!token)
    return problemResponse(
      401,
      "Unauthorized",
      "send Authorization: Bearer <device token>",
      {},
      { "www-authenticate": "Bearer" },
    );
  const headers = new Headers(c.req.raw.headers);
  // Only this route may speak for the token: drop anything a client put in our header space.
  for (const name of [...headers.keys()]) if (name.startsWith("x-edgeloop-")) headers.delete(name);
  headers.delete("authorization");
  headers.set("x-edgeloop-agent-id", agentId);
  const envTokens = cfg.config.DEVICE_TOKENS.get(agentId) ?? [];
  if (envTokens.length > 0 && (await matchesAny(token, envTokens))) headers.set("x-edgeloop-token-id", "env");
  else headers.set("x-edgeloop-token-sha256", await sha256Hex(token));
  return hubFor(c.env, agentId).fetch(new Request(c.req.raw.url, { headers, method: "GET" }));
});

/**
 * Every device the registry knows: online, last seen, version, tools; and the pools (POOLS)
 * messages may name. A scoped key (scope `devices:read`) sees only its devices and its pools.
 */
devices.get("/", authorize("devices:read"), async (c) => {
  const cfg = readConfig(c.env);
  const p = principalOf(c);
  const pools = cfg.ok
    ? [...cfg.config.POOLS]
        .filter(([pool]) => p.pools === "*" || p.pools.includes(pool))
        .map(([pool, members]) => ({ pool, members: members.filter((m) => mayReach(p.reach, m)) }))
    : [];
  const all = await registryOf(c.env).list();
  return c.json({ devices: all.filter((d) => mayReach(p.reach, d.agent_id)), pools });
});

devices.get("/:agent_id", authorize("devices:read"), async (c) => {
  const agentId = c.req.param("agent_id");
  if (!validId(agentId)) return problemResponse(400, "Invalid agent id");
  if (!mayReach(principalOf(c).reach, agentId)) return problemResponse(404, "Not found", `no device '${agentId}'`);
  return c.json(await hubFor(c.env, agentId).getDevice(agentId));
});

// ---- per-device tokens (admin) ----------------------------------------------------------------

const tokens = new Hono<{ Bindings: Env }>();
tokens.use("*", countRejections("/v1/devices/:agent_id/tokens"), requireToken("ADMIN_TOKEN"));

/** Issue a token. It is in this answer and nowhere else: only its hash is kept. */
tokens.post("/", async (c) => {
  const agentId = c.req.param("agent_id")!;
  if (!validId(agentId)) return problemResponse(400, "Invalid agent id");
  const issued = await hubFor(c.env, agentId).issueToken(agentId);
  return c.json({ agent_id: agentId, ...issued }, 201, { "cache-control": "no-store" });
});

tokens.get("/", async (c) => {
  const agentId = c.req.param("agent_id")!;
  if (!validId(agentId)) return problemResponse(400, "Invalid agent id");
  return c.json({ agent_id: agentId, tokens: await hubFor(c.env, agentId).listTokens() });
});

/** Revoke a token; a socket that authenticated with it is closed at once (4001). */
tokens.delete("/:token_id", async (c) => {
  const agentId = c.req.param("agent_id")!;
  const tokenId = c.req.param("token_id");
  if (!validId(agentId)) return problemResponse(400, "Invalid agent id");
  if (!/^tok_[0-9a-f]{16}$/.test(tokenId))
    return problemResponse(400, "Invalid token id", "token ids look like tok_<16 hex digits>");
  const result = await hubFor(c.env, agentId).revokeToken(tokenId);
  if (!result.found) return problemResponse(404, "Not found", `no token '${tokenId}' for '${agentId}'`);
  return c.json({ agent_id: agentId, token_id: tokenId, revoked: true, sockets_closed: result.closed });
});

devices.route("/:agent_id/tokens", tokens);
