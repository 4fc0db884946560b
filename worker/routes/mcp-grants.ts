import { McpGrantId } from "@edgeloop/protocol/mcp-grants";
import { Hono } from "hono";
import { problemResponse } from "../../runtime/problem.js";
import type { AppEnv } from "../env.js";
import { authorizeAdmin } from "../middleware/authorize.js";
import { countRejections } from "../middleware/count-rejections.js";
import { authorizationServerFor, oauthNotConfigured } from "../oauth/authorization-server.js";
import { listGrants, revokeGrant } from "../oauth/grants.js";

/**
 * `/v1/mcp/grants`: the OAuth grants to `/mcp` (admin; docs/mcp.md#revoking-an-app).
 *
 *   GET    /v1/mcp/grants       → {grants}: who was allowed what, and the key that carries it
 *   DELETE /v1/mcp/grants/:id   → {grant_id, key_id, revoked}: its key is revoked and its tokens deleted
 */
export const mcpGrants = new Hono<AppEnv>();

mcpGrants.use("*", countRejections("/v1/mcp/grants"), authorizeAdmin, async (c, next) =>
  c.env.OAUTH_KV ? next() : oauthNotConfigured(),
);

const api = (c: { req: { url: string }; env: AppEnv["Bindings"] }) =>
  authorizationServerFor(new URL(c.req.url).origin).getOAuthApi(c.env);

mcpGrants.get("/", async (c) =>
  c.json({ grants: await listGrants(c.env, api(c)) }, 200, { "cache-control": "no-store" }),
);

mcpGrants.delete("/:id", async (c) => {
  const id = c.req.param("id");
  if (!McpGrantId.safeParse(id).success) return problemResponse(400, "Invalid grant id", "see edgeloop mcp grants");
  const revoked = await revokeGrant(c.env, api(c), id);
  if (!revoked) return problemResponse(404, "Not found", `no grant '${id}'`);
  return c.json({ grant_id: id, key_id: revoked.key_id, revoked: true });
});
