import { Hono } from "hono";
import { deploymentOf } from "../../durable-objects/addresses.js";
import { clientMetadataFor } from "../../durable-objects/deployment/mcp-oauth-provider.js";
import { CALLBACK_PATH, CLIENT_METADATA_PATH } from "../../durable-objects/deployment/mcp-oauth-types.js";
import { problemResponse } from "../../runtime/problem.js";
import { escapeHtml } from "../dashboard/html-escape.js";
import { pageHeaders } from "../dashboard/security-headers.js";
import type { AppEnv } from "../env.js";
import { authorizeAdmin } from "../middleware/authorize.js";
import { countRejections } from "../middleware/count-rejections.js";

/**
 * Remote MCP servers that need OAuth (MCP_SERVERS entries with `oauth`; docs/mcp.md):
 *
 *   GET  /v1/mcp-servers                → {servers: [{name, status, detail, expires_at, updated_at}]} (admin)
 *   POST /v1/mcp-servers/:name/connect  → {status: "authorize", authorization_url} for the admin to open,
 *                                          or {status: "connected"} when no one needs asking (admin)
 *   GET  /v1/mcp-oauth/callback         where the server's authorization server sends the admin back
 *   GET  /v1/mcp-oauth/client-metadata.json   edgeloop's client ID metadata document
 *
 * The callback takes no credential: the single-use `state` it carries names the flow, and the
 * code is worth nothing without the PKCE verifier the McpAuthDO keeps.
 */
export const mcpServers = new Hono<AppEnv>();

mcpServers.use("*", countRejections("/v1/mcp-servers"), authorizeAdmin);

mcpServers.get("/", async (c) => c.json({ servers: await deploymentOf(c.env).mcpOAuthStatus() }));

mcpServers.post("/:name/connect", async (c) => {
  const name = c.req.param("name");
  const outcome = await deploymentOf(c.env).mcpOAuthBegin(name, new URL(c.req.url).origin);
  if (!outcome.ok) return problemResponse(outcome.code, "MCP server not connected", outcome.error);
  return c.json({ server: name, ...outcome, ok: undefined });
});

export const mcpOAuth = new Hono<AppEnv>();

mcpOAuth.get(CALLBACK_PATH.replace("/v1/mcp-oauth", ""), async (c) => {
  const state = c.req.query("state");
  if (!state) return page(400, "Not connected", "The link has no state: open the link `edgeloop mcp connect` printed.");
  const done = await deploymentOf(c.env).mcpOAuthFinish(
    state,
    c.req.query("code") ?? null,
    c.req.query("error") ?? null,
  );
  if (!done.ok) return page(400, "Not connected", done.error);
  return page(200, "Connected", `MCP server '${done.server}' is connected. You can close this page.`);
});

mcpOAuth.get(CLIENT_METADATA_PATH.replace("/v1/mcp-oauth", ""), (c) => {
  const origin = new URL(c.req.url).origin;
  return c.json({
    client_id: `${origin}${CLIENT_METADATA_PATH}`,
    ...clientMetadataFor(`${origin}${CALLBACK_PATH}`),
    token_endpoint_auth_method: "none",
  });
});

function page(status: 200 | 400, title: string, text: string): Response {
  const html = `<!doctype html><meta charset="utf-8"><title>${escapeHtml(title)}</title><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`;
  return new Response(html, { status, headers: pageHeaders("text/html; charset=utf-8") });
}
