import type { MiddlewareHandler } from "hono";
import { readConfig } from "../../durable-objects/front-door/front-door-config.js";
import { problemResponse } from "../../runtime/problem.js";
import type { AppEnv } from "../env.js";

/**
 * The settings, parsed once per isolate and set as `c.var.config`. A bad value answers every
 * request with a 500 naming it instead of misbehaving, and that includes the model's and the
 * device hubs' vars: they run in objects the client never sees, so the front door is where a bad
 * one can be reported.
 */
export const loadConfig: MiddlewareHandler<AppEnv> = async (c, next) => {
  const cfg = readConfig(c.env);
  if (!cfg.ok) return problemResponse(500, "Server misconfigured", cfg.error);
  c.set("config", cfg.config);
  await next();
};
