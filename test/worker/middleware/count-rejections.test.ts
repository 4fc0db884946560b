// Every refusal is counted under `<label> <status> <problem title>`, after the response is made;
// answers below 400 are not counted.

import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { deploymentOf } from "../../../durable-objects/addresses.js";
import { problemResponse } from "../../../runtime/problem.js";
import type { AppEnv } from "../../../worker/env.js";
import { countRejections } from "../../../worker/middleware/count-rejections.js";

const label = `probe-${crypto.randomUUID().slice(0, 8)}`;
const app = new Hono<AppEnv>().use(countRejections(label));
app.get("/ok", (c) => c.json({ ok: true }));
app.get("/refused", () => problemResponse(429, "Too many requests", "slow down"));
app.get("/plain", (c) => c.text("nope", 400));

async function send(path: string): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await app.request(path, {}, env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const counted = async () =>
  Object.fromEntries(Object.entries(await deploymentOf(env).rejections()).filter(([k]) => k.startsWith(label)));

describe("countRejections", () => {
  it("counts refusals by status and problem title, and leaves successes alone", async () => {
    expect((await send("/refused")).status).toBe(429);
    await send("/refused");
    await send("/ok");
    await send("/plain");
    expect(await counted()).toEqual({ [`${label} 429 Too many requests`]: 2, [`${label} 400`]: 1 });
  });
});
