import type { MiddlewareHandler } from "hono";
import { bearerToken, matchesAny } from "../auth.js";
import { readConfig } from "../config.js";
import type { Env } from "../env.js";
import { problem } from "../problem.js";

type TokenName = "API_TOKEN" | "ADMIN_TOKEN";

/**
 * Bearer auth against a configured token. The admin token is accepted wherever the API token is,
 * so an operator needs one secret. A deployment without the token configured refuses everything
 * rather than running open.
 */
export function requireToken(...names: TokenName[]): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    const cfg = readConfig(c.env);
    if (!cfg.ok) return problem(c, 500, "Server misconfigured", cfg.error);
    const accepted = names.map((n) => cfg.config[n]).filter((t): t is string => Boolean(t));
    if (accepted.length === 0) return problem(c, 503, "Not configured", `set ${names.join(" or ")} to use this endpoint`);
    const token = bearerToken(c.req.header("authorization"));
    if (!token) {
      return problem(c, 401, "Unauthorized", "send Authorization: Bearer <token>", {}, { "www-authenticate": "Bearer" });
    }
    if (!(await matchesAny(token, accepted))) return problem(c, 401, "Unauthorized", "invalid token", {}, { "www-authenticate": "Bearer" });
    await next();
  };
}
