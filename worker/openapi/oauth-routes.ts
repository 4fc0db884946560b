import { McpGrantList, RevokedMcpGrant } from "@edgeloop/protocol/mcp-grants";
import { ADMIN, json, PUBLIC, problem, type Route, text } from "./route.js";

/** `/mcp` as an OAuth-protected resource (worker/oauth/), and the grants made on its consent page. */
export const OAUTH_ROUTES: Route[] = [
  {
    method: "GET",
    path: "/.well-known/oauth-protected-resource/mcp",
    summary: "RFC 9728 metadata of /mcp: its authorization server and the scope any access needs",
    tag: "oauth",
    auth: PUBLIC,
    responses: { 200: json("the protected-resource metadata") },
  },
  {
    method: "GET",
    path: "/.well-known/oauth-authorization-server",
    summary:
      "RFC 8414 metadata: the authorization, token and registration endpoints, PKCE S256, scopes, client ID " +
      "metadata documents",
    tag: "oauth",
    auth: PUBLIC,
    responses: { 200: json("the authorization-server metadata") },
  },
  {
    method: "POST",
    path: "/oauth/register",
    summary: "RFC 7591 dynamic client registration (an MCP client registers itself)",
    tag: "oauth",
    auth: PUBLIC,
    responses: {
      201: json("the client's registration"),
      400: problem("`invalid_client_metadata` or `invalid_redirect_uri`"),
      429: problem("too many registrations from this address (RATE_LIMIT_REGISTER_*), with `Retry-After`"),
    },
  },
  {
    method: "POST",
    path: "/oauth/token",
    summary: "Exchange a code (with its PKCE verifier) or a refresh token for tokens; RFC 7009 revocation",
    tag: "oauth",
    auth: PUBLIC,
    responses: { 200: json("access and refresh tokens"), 400: problem("`invalid_grant`, `invalid_target`, …") },
  },
  {
    method: "GET",
    path: "/oauth/authorize",
    summary: "The consent page (behind the dashboard login): which client asks, and what it may reach",
    tag: "oauth",
    auth: PUBLIC,
    responses: {
      200: text("the consent page, or the login form", "text/html"),
      302: { description: "back to the client with an error, when its redirect URI is registered" },
      400: text(
        "a refused request (unknown client, unregistered redirect URI, an app's metadata document that cannot be " +
          "used): shown, never redirected",
        "text/html",
      ),
      429: text(
        "an app's metadata document to fetch, over the address's registration bucket (RATE_LIMIT_REGISTER_*)",
        "text/html",
      ),
    },
  },
  {
    method: "POST",
    path: "/oauth/authorize",
    summary: "The admin's answer (dashboard session): allow with a grant, or deny",
    tag: "oauth",
    auth: PUBLIC,
    responses: { 302: { description: "to the client's redirect URI with a code, or `access_denied`" } },
  },
  {
    method: "GET",
    path: "/v1/mcp/grants",
    summary: "The OAuth grants to /mcp: client, redirect URI, devices, pools, scopes, and the key that carries each",
    tag: "oauth",
    auth: ADMIN,
    responses: { 200: json("the grants", McpGrantList) },
  },
  {
    method: "DELETE",
    path: "/v1/mcp/grants/:id",
    summary: "Revoke a grant: its key is revoked and its tokens deleted",
    tag: "oauth",
    auth: ADMIN,
    responses: { 200: json("revoked", RevokedMcpGrant) },
  },
];
