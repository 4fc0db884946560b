import { CreateKeyRequest, KEY_SCOPES, KeyId } from "@edgeloop/protocol/api-keys";
import { Hono } from "hono";
import { deploymentOf } from "../../durable-objects/addresses.js";
import { forgetKey } from "../../durable-objects/deployment/in-force.js";
import { problemResponse } from "../../runtime/problem.js";
import type { AppEnv } from "../env.js";
import { authorizeAdmin } from "../middleware/authorize.js";
import { countRejections } from "../middleware/count-rejections.js";
import { followGrants } from "../oauth/grants.js";
import { readJsonBody } from "../read-body.js";

/**
 * `/v1/keys`: scoped API keys, issued by the admin (the admin token or the dashboard session).
 *
 *   POST   /v1/keys {name, agents?, pools?, scopes?} → 201 {key_id, key, …}: the key is in this
 *                                                      answer only; its SHA-256 is what is kept
 *   GET    /v1/keys                                  → {keys}: never the keys themselves
 *   DELETE /v1/keys/:id                              → {key_id, revoked}: the next request with it is refused
 *
 * What a key may do is in runtime/access.ts and docs/security.md.
 */
export const keys = new Hono<AppEnv>();

keys.use("*", countRejections("/v1/keys"), authorizeAdmin);

keys.post("/", async (c) => {
  const body = await readJsonBody(c, CreateKeyRequest);
  if (!body.ok) return body.response;
  const { POOLS } = c.var.config;
  const unknown = body.value.pools.find((p) => !POOLS.has(p));
  if (unknown !== undefined) {
    const known = [...POOLS.keys()].join(", ") || "none";
    const detail = `no pool '${unknown}' (configured: ${known})`;
    return problemResponse(400, "Unknown pool", detail, { errors: [{ path: "pools", message: detail }] });
  }
  const { name, agents, pools, scopes } = body.value;
  const issued = await deploymentOf(c.env).createKey({
    name,
    agents: [...new Set(agents)],
    pools: [...new Set(pools)],
    scopes: [...new Set(scopes ?? KEY_SCOPES)],
  });
  return c.json(issued, 201, { "cache-control": "no-store" });
});

keys.get("/", async (c) => {
  // Keys made for OAuth grants the library has since removed are revoked first (oauth/grants.ts).
  if (c.env.OAUTH_KV) await followGrants(c.env);
  return c.json({ keys: await deploymentOf(c.env).listKeys() });
});

keys.delete("/:id", async (c) => {
  const id = c.req.param("id");
  if (!KeyId.safeParse(id).success)
    return problemResponse(400, "Invalid key id", "key ids look like key_<16 hex digits>");
  const res = await deploymentOf(c.env).revokeKey(id);
  forgetKey(id);
  if (!res.found) return problemResponse(404, "Not found", `no key '${id}'`);
  return c.json({ key_id: id, revoked: true, already_revoked: !res.revoked });
});
