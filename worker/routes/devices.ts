import { Identifier } from "@edgeloop/protocol";
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { hubFor, registryOf } from "../../durable-objects/addresses.js";
import { WIRE_HEADER } from "../../durable-objects/device-hub/wires/device-wire.js";
import { mayReach } from "../../runtime/access.js";
import { problemResponse } from "../../runtime/problem.js";
import type { AppEnv } from "../env.js";
import { authorize, authorizeAdmin, authorizeDevice } from "../middleware/authorize.js";
import { countRejections } from "../middleware/count-rejections.js";

export const devices = new Hono<AppEnv>();

const validId = (id: string) => Identifier.safeParse(id).success;

/** A device's socket must name a valid device and ask for a WebSocket, before its token is looked at. */
const deviceUpgrade = createMiddleware<AppEnv>(async (c, next) => {
  if (!validId(c.req.param("agent_id") ?? "")) return problemResponse(400, "Invalid agent id");
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket")
    return problemResponse(426, "Upgrade required", "connect with a WebSocket", {}, { upgrade: "websocket" });
  return next();
});

/** The device WebSocket, handed to the device's hub with how the device proved itself (`authorizeDevice`). */
devices.get(
  "/:agent_id/connect",
  countRejections("GET /v1/devices/:agent_id/connect"),
  deviceUpgrade,
  authorizeDevice,
  async (c) => {
    const agentId = c.req.param("agent_id");
    const headers = new Headers(c.req.raw.headers);
    // Only this route may speak for the token: drop anything a client put in our header space.
    for (const name of [...headers.keys()]) if (name.startsWith("x-edgeloop-")) headers.delete(name);
    headers.delete("authorization");
    headers.set("x-edgeloop-agent-id", agentId);
    headers.set(WIRE_HEADER, "edgeloop");
    for (const [name, value] of Object.entries(c.var.deviceProof)) headers.set(name, value);
    return hubFor(c.env, agentId).fetch(new Request(c.req.raw.url, { headers, method: "GET" }));
  },
);

/**
 * Every device the registry knows: online, last seen, version, tools; and the pools (POOLS)
 * messages may name. A scoped key (scope `devices:read`) sees only its devices and its pools.
 */
devices.get("/", authorize("devices:read"), async (c) => {
  const p = c.var.principal;
  const pools = [...c.var.config.POOLS]
    .filter(([pool]) => p.pools === "*" || p.pools.includes(pool))
    .map(([pool, members]) => ({ pool, members: members.filter((m) => mayReach(p.reach, m)) }));
  const all = await registryOf(c.env).list();
  return c.json({ devices: all.filter((d) => mayReach(p.reach, d.agent_id)), pools });
});

/**
 * A video clip an OpenClaw node recorded (`camera_clip`, `screen_record`; docs/openclaw-nodes.md#clips),
 * the link its tool's result gives the model. The address is the content's hash, so it never changes.
 */
devices.get("/:agent_id/clips/:hash", authorize("devices:read"), async (c) => {
  const agentId = c.req.param("agent_id");
  const hash = c.req.param("hash");
  if (!validId(agentId)) return problemResponse(400, "Invalid agent id");
  if (!/^[0-9a-f]{64}$/.test(hash)) return problemResponse(400, "Invalid clip hash", "a SHA-256 in lowercase hex");
  if (!mayReach(c.var.principal.reach, agentId)) return problemResponse(404, "Not found", `no device '${agentId}'`);
  const clip = await hubFor(c.env, agentId).getClip(hash);
  if (!clip) return problemResponse(404, "Not found", `device '${agentId}' has no clip ${hash}`);
  return new Response(clip.bytes, {
    headers: {
      "content-type": clip.media_type,
      "cache-control": "private, max-age=31536000, immutable",
      etag: `"${hash}"`,
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; media-src 'self'; sandbox",
    },
  });
});

devices.get("/:agent_id", authorize("devices:read"), async (c) => {
  const agentId = c.req.param("agent_id");
  if (!validId(agentId)) return problemResponse(400, "Invalid agent id");
  if (!mayReach(c.var.principal.reach, agentId)) return problemResponse(404, "Not found", `no device '${agentId}'`);
  return c.json(await hubFor(c.env, agentId).getDevice(agentId));
});

// ---- per-device tokens (admin) ----------------------------------------------------------------

const tokens = new Hono<AppEnv>();
tokens.use("*", countRejections("/v1/devices/:agent_id/tokens"), authorizeAdmin);

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

/**
 * Clear the OpenClaw device keys revoked on this id (a revoked token's, a denied request's): until
 * then they are refused with no pairing request; after, each may ask to pair again.
 */
devices.delete(
  "/:agent_id/revoked-keys",
  countRejections("/v1/devices/:agent_id/revoked-keys"),
  authorizeAdmin,
  async (c) => {
    const agentId = c.req.param("agent_id");
    if (!validId(agentId)) return problemResponse(400, "Invalid agent id");
    const cleared = await hubFor(c.env, agentId).clearRevoked(agentId);
    return c.json({ agent_id: agentId, cleared });
  },
);
