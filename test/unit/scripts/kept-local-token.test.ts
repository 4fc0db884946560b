import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { keptLocalToken } from "../../../scripts/local-settings.js";
import { tempDir } from "../agent/helpers.js";

// npm start / npm run dev: a made-up token is the same after a restart, so printed lines and a
// dashboard session keep working; it is kept owner-only beside the worker's storage.
describe("keptLocalToken", () => {
  it("makes a token once and gives the same one after a restart, each name its own", () => {
    const state = join(tempDir("kept-tokens-"), "state");
    const admin = keptLocalToken(state, "ADMIN_TOKEN", "admin");
    expect(admin).toMatch(/^admin-[0-9a-f]{24}$/);
    const api = keptLocalToken(state, "API_TOKEN", "api");
    expect(api).not.toBe(admin);
    expect(keptLocalToken(state, "ADMIN_TOKEN", "admin")).toBe(admin);
    expect(keptLocalToken(state, "API_TOKEN", "api")).toBe(api);
    const file = join(state, "edgeloop-local-tokens.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ ADMIN_TOKEN: admin, API_TOKEN: api });
  });
});
