import type { MiddlewareHandler } from "hono";
import { deploymentOf } from "../../durable-objects/addresses.js";
import { log } from "../../runtime/log.js";
import type { AppEnv } from "../env.js";

/**
 * Count every refused request under `<label> <status> <title>` (the problem's title), so an admin
 * can see what the front door turns away (`GET /v1/limits`). Written after the response, off the
 * request's path.
 */
export function countRejections(label: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const status = c.res.status;
    if (status < 400) return;
    const count = async () => {
      let title = "";
      try {
        title = ((await c.res.clone().json()) as { title?: string }).title ?? "";
      } catch {
        /* not problem+json */
      }
      await deploymentOf(c.env).countRejection(`${label} ${status}${title ? ` ${title}` : ""}`);
    };
    const counted = count().catch((e) => log("warn", "rejection not counted", { error: String(e) }));
    try {
      c.executionCtx.waitUntil(counted);
    } catch {
      await counted; // no execution context (some test harnesses): count inline
    }
  };
}
