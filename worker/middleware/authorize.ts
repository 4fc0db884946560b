import { KEY_PREFIX, type KeyScope } from "@edgeloop/protocol/api-keys";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { roomForImages } from "../../durable-objects/front-door/message-images.js";
import { hasScope, unscoped } from "../../runtime/access.js";
import { sha256Hex } from "../../runtime/digest.js";
import { problemResponse } from "../../runtime/problem.js";
import type { AppEnv } from "../env.js";
import { notConfigured } from "../missing-settings.js";
import { bearerChallenge } from "../oauth/oauth-names.js";
import { principalForAccessToken } from "../oauth/token-principal.js";
import { readRawBody } from "../read-body.js";
import { bearerToken, principalForBearer } from "./credentials.js";
import { CSRF_HEADER, sessionOf, sessionRefusal } from "./dashboard-session.js";
import { authenticateMessage } from "./message-sender.js";
import { matchesAny, safeEqual } from "./safe-equal.js";

/**
 * Who may use a route, in one place. Each factory lets a request through with `c.var.principal`
 * set (runtime/access.ts has the rules), or answers the problem that refuses it:
 *
 * - `authorize(scope)`: the routes the API token opens: the API token, the admin token (or the
 *   dashboard's session cookie, which stands for it), or a scoped key that has `scope`.
 * - `authorizeAdmin`: the admin token or the dashboard session only.
 * - `authorizeSender`: `POST /v1/messages`, which also takes signed webhooks (message-sender.ts).
 * - `authorizeDevice`: a device's WebSocket, with one of that device's own tokens.
 *
 * A request that sends a bearer token is judged by it alone; a cookie-authenticated write must
 * carry `X-Edgeloop-CSRF: 1` (dashboard/session.ts). A deployment without the token configured
 * refuses rather than running open.
 */
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

/** The dashboard session, when the request has no Authorization header and sends one: null to judge the bearer. */
async function sessionOutcome(c: Context<AppEnv>, adminToken: string | undefined): Promise<Response | "ok" | null> {
  const session = sessionOf(c);
  if (c.req.header("authorization") || session === undefined || !adminToken) return null;
  return (await sessionRefusal(adminToken, session, c.req.method, c.req.header(CSRF_HEADER))) ?? "ok";
}

/**
 * `oauth`: the route is the OAuth-protected resource `/mcp` (oauth/authorization-server.ts): a 401
 * says where its metadata is, and an access token this worker issued for it counts as the scoped
 * key its grant carries.
 */
export function authorize(scope: KeyScope | null, opts: { oauth?: boolean } = {}) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const origin = new URL(c.req.url).origin;
    const challenge = (error?: "invalid_token") => (opts.oauth ? bearerChallenge(origin, error) : "Bearer");
    const { API_TOKEN, ADMIN_TOKEN } = c.var.config;
    const session = await sessionOutcome(c, ADMIN_TOKEN);
    if (session instanceof Response) return session;
    if (session === "ok") {
      c.set("principal", unscoped("admin", true));
      return next();
    }
    const token = bearerToken(c.req.header("authorization"));
    if (!token) return unauthorized("send Authorization: Bearer <token>", challenge());
    // Without either token there is no admin to have allowed an OAuth app either: say what to set.
    if (!API_TOKEN && !ADMIN_TOKEN && !token.startsWith(KEY_PREFIX))
      return notConfigured(c.var.config, c.env, "API_TOKEN or ADMIN_TOKEN");
    const principal =
      (await principalForBearer(c.env, c.var.config, token)) ??
      (opts.oauth ? await principalForAccessToken(c.env, c.var.config, origin, token) : null);
    if (!principal) return unauthorized("invalid token", challenge("invalid_token"));
    if (scope && !hasScope(principal, scope))
      return problemResponse(403, "Forbidden", `this key does not have the scope '${scope}'`);
    c.set("principal", principal);
    return next();
  });
}

export const authorizeAdmin = createMiddleware<AppEnv>(async (c, next) => {
  const admin = c.var.config.ADMIN_TOKEN;
  if (!admin) return notConfigured(c.var.config, c.env, "ADMIN_TOKEN");
  const session = await sessionOutcome(c, admin);
  if (session instanceof Response) return session;
  if (session === null) {
    const token = bearerToken(c.req.header("authorization"));
    if (!token) return unauthorized("send Authorization: Bearer <token>");
    if (!(await safeEqual(token, admin))) {
      // A token that opens the API routes is valid, just not enough here: say what is needed.
      const other = await principalForBearer(c.env, c.var.config, token);
      return other ? adminNeeded(other.scoped) : unauthorized("invalid token");
    }
  }
  c.set("principal", unscoped("admin", true));
  return next();
});

/** A message's body as sent (signatures are over these bytes) and the key it is deduplicated by. */
export type SenderEnv = AppEnv & { Variables: { rawBody: string; idempotencyKey: string | null } };

export const authorizeSender = createMiddleware<SenderEnv>(async (c, next) => {
  const raw = await readRawBody(c, c.var.config.MAX_BODY_BYTES + roomForImages(c.env));
  if (!raw.ok) return raw.response;
  const auth = await authenticateMessage(c.req, c.env, raw.value, c.var.config, sessionOf(c));
  if (!auth.ok) return auth.response;
  c.set("principal", auth.sender.principal);
  c.set("rawBody", raw.value);
  c.set("idempotencyKey", auth.sender.idempotencyKey);
  return next();
});

/**
 * How the device proved itself, as headers for its hub: `x-edgeloop-token-id: env` for a
 * `DEVICE_TOKENS` entry (checked here), else the token's SHA-256 for the hub to check against the
 * tokens issued through the admin API (it is the only place they are stored). A token of another
 * device never matches: each hub holds only its own device's tokens.
 */
export type DeviceEnv = AppEnv & { Variables: { deviceProof: Record<string, string> } };

export const authorizeDevice = createMiddleware<DeviceEnv>(async (c, next) => {
  const token = bearerToken(c.req.header("authorization"));
  if (!token) return unauthorized("send Authorization: Bearer <device token>");
  const envTokens = c.var.config.DEVICE_TOKENS.get(c.req.param("agent_id") ?? "") ?? [];
  const fromEnv = envTokens.length > 0 && (await matchesAny(token, envTokens));
  c.set(
    "deviceProof",
    fromEnv ? { "x-edgeloop-token-id": "env" } : { "x-edgeloop-token-sha256": await sha256Hex(token) },
  );
  return next();
});
