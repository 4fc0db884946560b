import { createMiddleware } from "hono/factory";
import { problemResponse } from "../../runtime/problem.js";
import { originRefusal } from "../../runtime/request-origin.js";
import type { AppEnv } from "../env.js";

/**
 * 403 for a request a browser page could have been tricked into sending (DNS rebinding): a foreign
 * `Origin`, or a non-loopback `Host` reaching a loopback address. The rule is
 * runtime/request-origin.ts; the allow-list is `MCP_ALLOWED_ORIGINS`. Runs before authentication,
 * so a rebound page learns nothing about tokens.
 */
export const refuseForeignOrigin = createMiddleware<AppEnv>(async (c, next) => {
  const refused = originRefusal({
    url: c.req.url,
    host: c.req.header("host") ?? null,
    origin: c.req.header("origin") ?? null,
    clientIp: c.req.header("cf-connecting-ip") ?? null,
    allowedOrigins: c.var.config.MCP_ALLOWED_ORIGINS,
  });
  if (refused) return problemResponse(403, "Forbidden origin", refused);
  return next();
});
