import { OAuthAuthorizationServer } from "@cloudflare/workers-oauth-provider";
import { KEY_SCOPES } from "@edgeloop/protocol/api-keys";
import { log } from "../../runtime/log.js";
import { problemResponse } from "../../runtime/problem.js";

/**
 * The fleet's MCP server (`/mcp`) as an OAuth 2.1 protected resource, with this worker as its own
 * authorization server (docs/mcp.md#add-the-fleet-to-claude-or-chatgpt). The protocol — metadata,
 * dynamic client registration, PKCE, codes, refresh-token rotation, audience binding, token storage
 * in the `OAUTH_KV` binding — is `@cloudflare/workers-oauth-provider`'s; edgeloop owns the consent
 * page (consent-routes.ts) and what a grant reaches (grant-key.ts: a grant is a scoped key).
 */

export const MCP_PATH = "/mcp";
export const AUTHORIZE_PATH = "/oauth/authorize";
export const TOKEN_PATH = "/oauth/token";
export const REGISTER_PATH = "/oauth/register";
/** RFC 9728: the resource's metadata, at the well-known prefix followed by the resource's path. */
export const RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;
/** Every grant belongs to the deployment's admin, the one person who can consent. */
export const GRANT_USER = "admin";
/** What any access needs (the 401 names it); the rest of a grant's scopes are chosen on the consent page. */
export const REQUIRED_SCOPES = ["mcp"] as const;

/** An access token lives an hour; a grant 30 days after its code was exchanged, however often refreshed. */
const ACCESS_TOKEN_TTL_S = 3600;

/**
 * The authorization server for one origin. The issuer and the resource are this worker's own URL,
 * which a Worker learns only from a request (a route, a custom domain, workers.dev, or 127.0.0.1
 * under `wrangler dev`), and the library fixes both at construction; so one is made per origin and
 * kept. A token is bound to the origin it was issued at: presented at another, its audience does
 * not match and it is refused.
 */
const servers = new Map<string, OAuthAuthorizationServer<OAuthEnv>>();

export type OAuthEnv = { OAUTH_KV: KVNamespace };

export function resourceFor(origin: string): string {
  return `${origin}${MCP_PATH}`;
}

export function authorizationServerFor(origin: string): OAuthAuthorizationServer<OAuthEnv> {
  let server = servers.get(origin);
  if (!server) {
    server = new OAuthAuthorizationServer<OAuthEnv>({
      issuer: origin,
      resources: [resourceFor(origin)],
      authorizeEndpoint: AUTHORIZE_PATH,
      tokenEndpoint: TOKEN_PATH,
      clientRegistrationEndpoint: REGISTER_PATH,
      scopesSupported: [...KEY_SCOPES],
      accessTokenTTL: ACCESS_TOKEN_TTL_S,
      // The library's default logs every refusal as a warning; edgeloop counts them (count-rejections.ts)
      // and logs the reason the library gives, which never reaches the wire.
      onError: ({ code, status, internal }) => {
        log("info", "oauth request refused", { code, status, reason: internal?.reason });
      },
    });
    if (servers.size >= 16) servers.delete(servers.keys().next().value!);
    servers.set(origin, server);
  }
  return server;
}

/** RFC 9728 protected-resource metadata for `/mcp` at this origin. */
export function resourceMetadata(origin: string) {
  return {
    resource: resourceFor(origin),
    authorization_servers: [origin],
    scopes_supported: [...REQUIRED_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "edgeloop device fleet",
  };
}

/**
 * The `WWW-Authenticate` challenge a refused `/mcp` request carries (RFC 6750, RFC 9728 §5.1, MCP
 * authorization): where the resource's metadata is, and the scope to ask for. `error` only when a
 * token was sent and is not valid.
 */
export function bearerChallenge(origin: string, error?: "invalid_token"): string {
  const parts = [
    `resource_metadata="${origin}${RESOURCE_METADATA_PATH}"`,
    `scope="${REQUIRED_SCOPES.join(" ")}"`,
    ...(error ? [`error="${error}"`] : []),
  ];
  return `Bearer ${parts.join(", ")}`;
}

/** A 503 when the binding is missing (a wrangler.toml from before OAuth): say what to add. */
export function oauthNotConfigured(): Response {
  return problemResponse(
    503,
    "OAuth not configured",
    "the worker has no OAUTH_KV binding; add the [[kv_namespaces]] entry from the project's wrangler.toml",
  );
}
