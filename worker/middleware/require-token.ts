import type { MiddlewareHandler } from "hono";
import { problemResponse } from "../../runtime/problem.js";
import { bearerToken, matchesAny } from "../auth.js";
import { readConfig } from "../config.js";
import { CSRF_HEADER, readCookie, SESSION_COOKIE, verifySession } from "../dashboard/session.js";
import type { Env } from "../env.js";

type TokenName = "API_TOKEN" | "ADMIN_TOKEN";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Bearer auth against a configured token. The admin token is accepted wherever the API token is,
 * so an operator needs one secret. A deployment without the token configured refuses everything
 * rather than running open.
 *
 * Where the admin token is accepted, the dashboard's signed session cookie is too (it stands for
 * the admin token). A request that sends a bearer token is judged by it alone. A cookie-authenticated
 * write must also carry `X-Edgeloop-CSRF`: browsers send cookies with cross-site requests in some
 * cases SameSite does not cover (old browsers, same-site subdomains), but never a custom header.
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
      if (!(await verifySession(adminToken, session)))
        return problemResponse(401, "Unauthorized", "the session has expired; log in again");
      if (!SAFE_METHODS.has(c.req.method) && c.req.header(CSRF_HEADER) !== "1") {
        return problemResponse(
          403,
          "Forbidden",
          "cookie-authenticated requests that change state need the header X-Edgeloop-CSRF: 1",
        );
      }
      return next();
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
