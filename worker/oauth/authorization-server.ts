import { OAuthAuthorizationServer } from "@cloudflare/workers-oauth-provider";
import { KEY_SCOPES } from "@edgeloop/protocol/api-keys";
import { log } from "../../runtime/log.js";
import { problemResponse } from "../../runtime/problem.js";
import { AUTHORIZE_PATH, GRANT_TTL_S, REGISTER_PATH, resourceFor, TOKEN_PATH } from "./oauth-names.js";

/**
 * The fleet's MCP server (`/mcp`) as an OAuth 2.1 protected resource, with this worker as its own
 * authorization server (docs/mcp.md#add-the-fleet-to-claude-or-chatgpt). The protocol — metadata,
 * dynamic client registration, PKCE, codes, refresh-token rotation, audience binding, token storage
 * in the `OAUTH_KV` binding — is `@cloudflare/workers-oauth-provider`'s; edgeloop owns the consent
 * page (oauth-routes.ts), what a grant reaches (grants.ts: a grant is a scoped key), and fetching
 * the metadata documents of apps named by URL (metadata-clients.ts: the library's own fetching,
 * `clientIdMetadataDocumentEnabled`, stays off).
 */

/** An access token lives an hour (a grant, GRANT_TTL_S). */
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
      // The library's default, named here because metadata-clients.ts keeps a client's record as long.
      refreshTokenTTL: GRANT_TTL_S,
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

/** A 503 when the binding is missing (a wrangler.toml from before OAuth): say what to add. */
export function oauthNotConfigured(): Response {
  return problemResponse(
    503,
    "OAuth not configured",
    "the worker has no OAUTH_KV binding; add the [[kv_namespaces]] entry from the project's wrangler.toml",
  );
}
