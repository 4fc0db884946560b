import { GRANT_USER } from "./oauth-names.js";

/**
 * A grant's key follows its grant (grants.ts). The OAuth library also removes grants by itself — a
 * code presented twice, a refresh token its app revokes (RFC 7009), a code never exchanged, a grant
 * past its 30 days — and tells no one; the key made for such a grant would stay listed as active,
 * though nobody can use it (it lived only inside the grant). So each key made for a grant is linked
 * to the grant's id, and whenever grants or keys are listed, a key whose grant record is gone is
 * revoked. Pure: the names the link rests on, from the library's documented storage schema.
 */

/**
 * The id of the grant an authorization code belongs to: the library's codes, like its tokens, are
 * `<user id>:<grant id>:<secret>`. Null for anything else.
 */
export function grantIdOfRedirect(redirectTo: string): string | null {
  const code = URL.canParse(redirectTo) ? new URL(redirectTo).searchParams.get("code") : null;
  const parts = code?.split(":") ?? [];
  return parts.length === 3 && parts[0] === GRANT_USER && /^[A-Za-z0-9_-]{1,64}$/.test(parts[1]!) ? parts[1]! : null;
}

/** Where the library keeps a grant in OAUTH_KV (`grant:<user id>:<grant id>`): present while it lives. */
export function grantRecordKey(grantId: string): string {
  return `grant:${GRANT_USER}:${grantId}`;
}
