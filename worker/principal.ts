import { KEY_PREFIX, type KeyScope } from "@edgeloop/protocol/api-keys";
import type { Context, MiddlewareHandler } from "hono";
import { apiKeysOf } from "../durable-objects/addresses.js";
import { hasScope, type Principal, scopedPrincipal, unscoped } from "../runtime/access.js";
import { sha256Hex } from "../runtime/digest.js";
import { problemResponse } from "../runtime/problem.js";
import { bearerToken, safeEqual } from "./auth.js";
import { readConfig, type WorkerConfig } from "./config.js";
import { CSRF_HEADER, readCookie, SESSION_COOKIE, sessionRefusal } from "./dashboard/session.js";
import type { Env } from "./env.js";

/**
 * Who a request speaks for (runtime/access.ts has the rules): the admin token or the dashboard
 * session (`admin`), the API token (`api`), or a scoped key from `/v1/keys` (`key:<key_id>`).
 * Routes that take the API token take all three, through `authorize`, and read the principal
 * from the context to filter what they show.
 */
export type AppEnv = { Bindings: Env; Variables: { principal: Principal } };

export const principalOf = (c: Context<AppEnv>): Principal => c.get("principal");

/**
 * The principal a bearer token stands for, or null. The configured tokens are both compared every
 * time (constant time, so the time taken does not say which matched); a token with the key prefix
 * is then looked up by its SHA-256, which is all the keys' object stores. A revoked key is null.
 */
export async function principalForBearer(env: Env, cfg: WorkerConfig, token: string): Promise<Principal | null> {
  const [api, admin] = await Promise.all([
    cfg.API_TOKEN ? safeEqual(token, cfg.API_TOKEN) : false,
    cfg.ADMIN_TOKEN ? safeEqual(token, cfg.ADMIN_TOKEN) : false,
  ]);
  if (admin) return unscoped("admin", true);
  if (api) return unscoped("api");
  if (!token.startsWith(KEY_PREFIX)) return null;
  const key = await apiKeysOf(env).verify(await sha256Hex(token));
  return key ? scopedPrincipal(`key:${key.key_id}`, key, cfg.POOLS) : null;
}

const unauthorized = (detail: string) =>
  problemResponse(401, "Unauthorized", detail, {}, { "www-authenticate": "Bearer" });

/**
 * Authentication for the routes the API token opens: the API token, the admin token (or the
 * dashboard's session cookie, which stands for it; a write must carry `X-Edgeloop-CSRF: 1`), or a
 * scoped key that has `scope`. A request that sends a bearer token is judged by it alone. A
 * deployment with neither token configured refuses everything but keys rather than running open.
 */
export function authorize(scope: KeyScope | null): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const cfg = readConfig(c.env);
    if (!cfg.ok) return problemResponse(500, "Server misconfigured", cfg.error);
    const { API_TOKEN, ADMIN_TOKEN } = cfg.config;
    const authorization = c.req.header("authorization");
    const session = readCookie(c.req.header("cookie"), SESSION_COOKIE);
    if (!authorization && session !== undefined && ADMIN_TOKEN) {
      const refused = await sessionRefusal(ADMIN_TOKEN, session, c.req.method, c.req.header(CSRF_HEADER));
      if (refused) return refused;
      c.set("principal", unscoped("admin", true));
      return next();
    }
    const token = bearerToken(authorization);
    if (!token) return unauthorized("send Authorization: Bearer <token>");
    if (!API_TOKEN && !ADMIN_TOKEN && !token.startsWith(KEY_PREFIX))
      return problemResponse(503, "Not configured", "set API_TOKEN or ADMIN_TOKEN to use this endpoint");
    const principal = await principalForBearer(c.env, cfg.config, token);
    if (!principal) return unauthorized("invalid token");
    if (scope && !hasScope(principal, scope))
      return problemResponse(403, "Forbidden", `this key does not have the scope '${scope}'`);
    c.set("principal", principal);
    return next();
  };
}
