/**
 * The names and documents of `/mcp` as an OAuth-protected resource (authorization-server.ts has
 * the server itself). Pure, so the consent form's rules are unit-tested in Node.
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
/** A grant lasts 30 days from its code's exchange, however often its tokens are refreshed. */
export const GRANT_TTL_S = 30 * 86_400;

export function resourceFor(origin: string): string {
  return `${origin}${MCP_PATH}`;
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
