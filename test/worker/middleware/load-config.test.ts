// The settings are parsed once, by one middleware, and a bad value is answered in one place.

import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../../worker/env.js";
import { loadConfig } from "../../../worker/middleware/load-config.js";
import { ADMIN, call } from "../support/front-door.js";

const probe = new Hono<AppEnv>().use(loadConfig).get("/", (c) => c.json({ max: c.var.config.MAX_BODY_BYTES }));

describe("loadConfig", () => {
  it("sets the parsed settings as c.var.config", async () => {
    const res = await probe.request("/", {}, { ...env, MAX_BODY_BYTES: "4096" });
    expect(await res.json()).toEqual({ max: 4096 });
  });

  it("answers a bad value with 500 Server misconfigured naming it, before the route runs", async () => {
    const res = await probe.request("/", {}, { ...env, MAX_BODY_BYTES: "lots" });
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const problem = (await res.json()) as { title: string; detail: string; status: number };
    expect(problem).toMatchObject({ type: "about:blank", title: "Server misconfigured", status: 500 });
    expect(problem.detail).toContain("MAX_BODY_BYTES");
  });

  it("guards every route of the app, and only /healthz answers regardless", async () => {
    const bad = { RATE_LIMIT_SENDER_BURST: "0" };
    for (const path of ["/v1/limits", "/v1/conversations", "/v1/keys", "/"]) {
      const res = await call(path, { headers: ADMIN }, bad);
      expect(res.status, path).toBe(500);
      expect(((await res.json()) as { detail: string }).detail).toContain("RATE_LIMIT_SENDER_BURST");
    }
    expect((await call("/healthz", {}, bad)).status).toBe(200);
  });
});
