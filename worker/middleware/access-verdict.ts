import { KEY_PREFIX, type KeyScope } from "@edgeloop/protocol/api-keys";
import { hasScope, type Principal, unscoped } from "../../runtime/access.js";
import { sha256Hex } from "../../runtime/digest.js";
import { problemResponse } from "../../runtime/problem.js";
import { sessionRefusal } from "./dashboard-session.js";
import { matchesAny, safeEqual } from "./safe-equal.js";

/**
 * The verdict on the credentials a request shows, for `authorize`, `authorizeAdmin` and `authorizeDevice` (authorize.ts):
 * the principal it may act as, or the problem that refuses it. Whatever needs the deployment (looking a
 * token up, saying which settings are missing) comes in as `Lookups`, so these rules are tested in Node.
 */

/** What a request shows: its Authorization header, the dashboard session cookie, its method, its CSRF header. */
export type Shown = {
  authorization: string | undefined;
  session: string | undefined;
  method: string;
  csrf: string | undefined;
};

export type Lookups = {
  /** The principal a bearer token stands for (credentials.ts `principalForBearer`), or null. */
  bearer(token: string): Promise<Principal | null>;
  /** On the OAuth-protected `/mcp` only: an access token this worker issued, as the key its grant carries. */
  accessToken?: (token: string) => Promise<Principal | null>;
  /** The answer that names settings the deployment lacks (missing-settings.ts `notConfigured`). */
  notConfigured(requirement: "ADMIN_TOKEN" | "API_TOKEN or ADMIN_TOKEN"): Response;
  /** The WWW-Authenticate challenge of a 401 (OAuth's names its metadata); plain `Bearer` when absent. */
  challenge?: (error?: "invalid_token") => string;
};

export function bearerToken(header: string | undefined | null): string | null {
  const m = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return m ? m[1]! : null;
}

const unauthorized = (detail: string, challenge = "Bearer") =>
  problemResponse(401, "Unauthorized", detail, {}, { "www-authenticate": challenge });

/** A valid token that is not the admin token, on an admin route: 403, naming the token it needs. */
export const ADMIN_NEEDED_DETAIL = "this endpoint needs the admin token (ADMIN_TOKEN); the API token is not enough";
const adminNeeded = (scopedKey: boolean) =>
  problemResponse(
    403,
    "Admin token required",
    scopedKey ? ADMIN_NEEDED_DETAIL.replace("the API token", "an API key") : ADMIN_NEEDED_DETAIL,
  );

/**
 * The dashboard session, when the request has no Authorization header and sends one (a bearer token is
 * judged alone): its refusal, "ok", or null to judge the bearer.
 */
async function sessionOutcome(shown: Shown, adminToken: string | undefined): Promise<Response | "ok" | null> {
  if (shown.authorization || shown.session === undefined || !adminToken) return null;
  return (await sessionRefusal(adminToken, shown.session, shown.method, shown.csrf)) ?? "ok";
}

/** `authorize(scope)`: the API token, the admin token or its session, or a scoped key that has `scope`. */
export async function apiVerdict(
  scope: KeyScope | null,
  shown: Shown,
  tokens: { API_TOKEN?: string | undefined; ADMIN_TOKEN?: string | undefined },
  lookups: Lookups,
): Promise<Principal | Response> {
  const session = await sessionOutcome(shown, tokens.ADMIN_TOKEN);
  if (session instanceof Response) return session;
  if (session === "ok") return unscoped("admin", true);
  const token = bearerToken(shown.authorization);
  if (!token) return unauthorized("send Authorization: Bearer <token>", lookups.challenge?.());
  // Without either token there is no admin to have allowed an OAuth app either: say what to set.
  if (!tokens.API_TOKEN && !tokens.ADMIN_TOKEN && !token.startsWith(KEY_PREFIX))
    return lookups.notConfigured("API_TOKEN or ADMIN_TOKEN");
  const principal = (await lookups.bearer(token)) ?? (lookups.accessToken ? await lookups.accessToken(token) : null);
  if (!principal) return unauthorized("invalid token", lookups.challenge?.("invalid_token"));
  if (scope && !hasScope(principal, scope))
    return problemResponse(403, "Forbidden", `this key does not have the scope '${scope}'`);
  return principal;
}

/** `authorizeAdmin`: the admin token or the dashboard session only. */
export async function adminVerdict(
  shown: Shown,
  adminToken: string | undefined,
  lookups: Pick<Lookups, "bearer" | "notConfigured">,
): Promise<Principal | Response> {
  if (!adminToken) return lookups.notConfigured("ADMIN_TOKEN");
  const session = await sessionOutcome(shown, adminToken);
  if (session instanceof Response) return session;
  if (session === null) {
    const token = bearerToken(shown.authorization);
    if (!token) return unauthorized("send Authorization: Bearer <token>");
    if (!(await safeEqual(token, adminToken))) {
      // A token that opens the API routes is valid, just not enough here: say what is needed.
      const other = await lookups.bearer(token);
      return other ? adminNeeded(other.scoped) : unauthorized("invalid token");
    }
  }
  return unscoped("admin", true);
}

/**
 * `authorizeDevice`: how the device proved itself, as headers for its hub: `x-edgeloop-token-id: env` for one
 * of its `DEVICE_TOKENS` entries (checked here, every entry, in constant time), else the token's SHA-256 for the
 * hub to check against the tokens issued through the admin API (it is the only place they are stored). A token
 * of another device never matches: each hub holds only its own device's tokens.
 */
export async function deviceProof(
  authorization: string | undefined,
  envTokens: readonly string[],
): Promise<Record<string, string> | Response> {
  const token = bearerToken(authorization);
  if (!token) return unauthorized("send Authorization: Bearer <device token>");
  if (await matchesAny(token, envTokens)) return { "x-edgeloop-token-id": "env" };
  return { "x-edgeloop-token-sha256": await sha256Hex(token) };
}
