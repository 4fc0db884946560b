import type { MiddlewareHandler } from "hono";
import { problemResponse } from "../../runtime/problem.js";
import { bearerToken, matchesAny } from "../auth.js";
import { readConfig } from "../config.js";
import { CSRF_HEADER, readCookie, SESSION_COOKIE, sessionRefusal } from "../dashboard/session.js";
import type { Env } from "../env.js";

type TokenName = "API_TOKEN" | "ADMIN_TOKEN";

/**
 * Bearer auth against a configured token. The admin token is accepted wherever the API token is,
 * so an operator needs one secret. A deployment without the token configured refuses everything
 * rather than running open.
 *
 * Where the admin token is accepted, the dashboard's signed session cookie is too (it stands for
 * the admin token). A request that sends a bearer token is judged by it alone. A cookie-authenticated
 * write must also carry `X-Edgeloop-CSRF` (see `sessionRefusal`).
 */
export function requireToken(...names: TokenName[]): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    const cfg = readConfig(c.env);
    if (!cfg.ok) return problemResponse(500, "Server misconfigured", cfg.error);
    const accepted = names.map((n) => cfg.config[n]).filter((t): t is string => Boolean(t));
    if (accepted.length === 0)
      return problemResponse(503, "Not configured", `set ${names.join(" or ")} to use this endpoint`);
    const authorization = c.req.header("authorization");
    const session = readCookie(c.req.header("cookie"), SESSION_COOKIE);
    const adminToken = names.includes("ADMIN_TOKEN") ? cfg.config.ADMIN_TOKEN : undefined;
    if (!authorization && session !== undefined && adminToken) {
      const refused = await sessionRefusal(adminToken, session, c.req.method, c.req.header(CSRF_HEADER));
      return refused ?? next();
    }
    const token = bearerToken(authorization);
    if (!token) {
      return problemResponse(
        401,
        "Unauthorized",
        "send Authorization: Bearer <token>",
        {},
        { "www-authenticate": "Bearer" },
      );
    }
    if (!(await matchesAny(token, accepted)))
      return problemResponse(401, "Unauthorized", "invalid token", {}, { "www-authenticate": "Bearer" });
    await next();
  };
}
