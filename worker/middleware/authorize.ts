import type { KeyScope } from "@edgeloop/protocol/api-keys";
import type { Context, Next } from "hono";
import { createMiddleware } from "hono/factory";
import { roomForImages } from "../../durable-objects/front-door/message-images.js";
import type { Principal } from "../../runtime/access.js";
import type { AppEnv } from "../env.js";
import { notConfigured } from "../missing-settings.js";
import { bearerChallenge } from "../oauth/oauth-names.js";
import { principalForAccessToken } from "../oauth/token-principal.js";
import { readRawBody } from "../read-body.js";
import { adminVerdict, apiVerdict, deviceProof, type Lookups, type Shown } from "./access-verdict.js";
import { principalForBearer } from "./credentials.js";
import { CSRF_HEADER, sessionOf } from "./dashboard-session.js";
import { authenticateMessage } from "./message-sender.js";

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
 * carry `X-Edgeloop-CSRF: 1` (dashboard-session.ts). A deployment without the token configured
 * refuses rather than running open.
 */
/** What the request shows, for access-verdict.ts. */
const shown = (c: Context<AppEnv>): Shown => ({
  authorization: c.req.header("authorization"),
  session: sessionOf(c),
  method: c.req.method,
  csrf: c.req.header(CSRF_HEADER),
});

/** Let the request through as the verdict's principal, or answer its refusal. */
async function follow(c: Context<AppEnv>, next: Next, verdict: Principal | Response) {
  if (verdict instanceof Response) return verdict;
  c.set("principal", verdict);
  return next();
}

/**
 * `oauth`: the route is the OAuth-protected resource `/mcp` (oauth/authorization-server.ts): a 401
 * says where its metadata is, and an access token this worker issued for it counts as the scoped
 * key its grant carries.
 */
export function authorize(scope: KeyScope | null, opts: { oauth?: boolean } = {}) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const origin = new URL(c.req.url).origin;
    const cfg = c.var.config;
    const lookups: Lookups = {
      bearer: (token) => principalForBearer(c.env, cfg, token),
      notConfigured: (names) => notConfigured(cfg, c.env, names),
      ...(opts.oauth
        ? {
            accessToken: (token: string) => principalForAccessToken(c.env, cfg, origin, token),
            challenge: (error?: "invalid_token") => bearerChallenge(origin, error),
          }
        : {}),
    };
    return follow(c, next, await apiVerdict(scope, shown(c), cfg, lookups));
  });
}

export const authorizeAdmin = createMiddleware<AppEnv>(async (c, next) => {
  const cfg = c.var.config;
  const verdict = await adminVerdict(shown(c), cfg.ADMIN_TOKEN, {
    bearer: (token) => principalForBearer(c.env, cfg, token),
    notConfigured: (names) => notConfigured(cfg, c.env, names),
  });
  return follow(c, next, verdict);
});

/** A message's body as sent (signatures are over these bytes) and the key it is deduplicated by. */
export type SenderEnv = AppEnv & { Variables: { rawBody: string; idempotencyKey: string | null } };

export const authorizeSender = createMiddleware<SenderEnv>(async (c, next) => {
  const raw = await readRawBody(c, c.var.config.MAX_BODY_BYTES + roomForImages(c.env));
  if (!raw.ok) return raw.response;
  const cfg = c.var.config;
  const auth = await authenticateMessage(c.req, raw.value, cfg, sessionOf(c), {
    bearer: (token) => principalForBearer(c.env, cfg, token),
    notConfigured: (names) => notConfigured(cfg, c.env, names),
  });
  if (!auth.ok) return auth.response;
  c.set("principal", auth.sender.principal);
  c.set("rawBody", raw.value);
  c.set("idempotencyKey", auth.sender.idempotencyKey);
  return next();
});

/** How the device proved itself, as headers for its hub (access-verdict.ts `deviceProof`). */
export type DeviceEnv = AppEnv & { Variables: { deviceProof: Record<string, string> } };

export const authorizeDevice = createMiddleware<DeviceEnv>(async (c, next) => {
  const envTokens = c.var.config.DEVICE_TOKENS.get(c.req.param("agent_id") ?? "") ?? [];
  const proof = await deviceProof(c.req.header("authorization"), envTokens);
  if (proof instanceof Response) return proof;
  c.set("deviceProof", proof);
  return next();
});
