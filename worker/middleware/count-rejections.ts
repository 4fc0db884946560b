import type { Context, MiddlewareHandler } from "hono";
import { deploymentOf } from "../../durable-objects/addresses.js";
import { log } from "../../runtime/log.js";
import type { AppEnv } from "../env.js";

/**
 * Count every refused request under `<label> <status> <title>` (the problem's title, or an OAuth
 * error's `error` code), so an admin can see what the front door turns away (`GET /v1/limits`).
 * Written after the response, off the request's path.
 */
export function countRejections(label: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const status = c.res.status;
    if (status < 400) return;
    let title = "";
    try {
      const body = (await c.res.clone().json()) as { title?: string; error?: unknown };
      title = body.title ?? (typeof body.error === "string" ? body.error : "");
    } catch {
      /* not JSON */
    }
    await countRejection(c, `${label} ${status}${title ? ` ${title}` : ""}`);
  };
}

/** Count one refusal under `key`, for a route that answers a page rather than problem+json. */
export async function countRejection(c: Context<AppEnv>, key: string): Promise<void> {
  const counted = deploymentOf(c.env)
    .countRejection(key)
    .catch((e) => log("warn", "rejection not counted", { error: String(e) }));
  try {
    c.executionCtx.waitUntil(counted);
  } catch {
    await counted; // no execution context (some test harnesses): count inline
  }
}
