// Token comparison and the principal a bearer token stands for.

import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../../durable-objects/front-door/front-door-config.js";
import { bearerToken } from "../../../worker/middleware/access-verdict.js";
import { principalForBearer } from "../../../worker/middleware/credentials.js";
import { matchesAny, safeEqual } from "../../../worker/middleware/safe-equal.js";

describe("credentials", () => {
  it("compares tokens exactly, whatever their lengths", async () => {
    expect(await safeEqual("secret", "secret")).toBe(true);
    expect(await safeEqual("secret", "secret ")).toBe(false);
    expect(await safeEqual("", "x")).toBe(false);
    expect(await matchesAny("b", ["a", "b", "c"])).toBe(true);
    expect(await matchesAny("d", ["a", "b", "c"])).toBe(false);
    expect(await matchesAny("a", [])).toBe(false);
  });

  it("reads a bearer token, case-insensitively, and nothing else", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer  abc  ")).toBe("abc");
    expect(bearerToken("Basic abc")).toBeNull();
    expect(bearerToken("Bearer a b")).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });

  it("maps the configured tokens to their principals, and an unknown token to none", async () => {
    const cfg = readConfig(env);
    if (!cfg.ok) throw new Error(cfg.error);
    expect(await principalForBearer(env, cfg.config, env.ADMIN_TOKEN!)).toMatchObject({ id: "admin", admin: true });
    expect(await principalForBearer(env, cfg.config, env.API_TOKEN!)).toMatchObject({ id: "api", admin: false });
    expect(await principalForBearer(env, cfg.config, "edk_not-a-key")).toBeNull();
    expect(await principalForBearer(env, cfg.config, "something-else")).toBeNull();
  });
});
