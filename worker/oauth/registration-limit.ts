import type { Context } from "hono";
import { limiterFor } from "../../durable-objects/addresses.js";
import { problemResponse } from "../../runtime/problem.js";
import type { AppEnv } from "../env.js";

/**
 * Registering an app is open to anyone, by either way: `POST /oauth/register`, or an authorization
 * request naming an app by the URL of its metadata document (metadata-clients.ts), which makes the
 * worker fetch that URL. Each writes a client record to OAUTH_KV. So each takes a token from one
 * bucket per caller address (`RATE_LIMIT_REGISTER_*`), kept by the front door's limiter objects
 * (front-door/limiter-do.ts) as a sender's is; the address is the one Cloudflare saw
 * (`CF-Connecting-IP`). A document still fresh takes nothing: nothing is fetched or written.
 */
export type RegistrationAdmission = { ok: true } | { ok: false; retry_after_s: number; detail: string };

export async function admitRegistration(c: Context<AppEnv>): Promise<RegistrationAdmission> {
  const address = c.req.header("cf-connecting-ip") ?? "unknown";
  const { RATE_LIMIT_REGISTER_PER_MIN: perMinute, RATE_LIMIT_REGISTER_BURST: burst } = c.var.config;
  const admission = await limiterFor(c.env, `register:${address}`).admit({ perMinute, burst });
  return admission.ok ? admission : { ok: false, retry_after_s: admission.retry_after_s, detail: admission.detail };
}

/** The 429 for `POST /oauth/register` (problem+json, as every refusal of the API). */
export function tooManyRegistrations(refusal: Extract<RegistrationAdmission, { ok: false }>): Response {
  return problemResponse(
    429,
    "Too many registrations",
    `new apps from this address are limited (${refusal.detail}); try again in ${refusal.retry_after_s} s`,
    {},
    { "retry-after": String(refusal.retry_after_s) },
  );
}
