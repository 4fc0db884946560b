import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../helpers/processes.js";
import { servedConfig } from "../../helpers/worker-bundle.js";

/** The config the e2e files start the prebuilt worker with (test/helpers/worker-bundle-setup.ts). */
describe("the prebuilt worker's config", () => {
  const original = readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8");
  const ours = parse(original) as Record<string, unknown>;
  const served = parse(servedConfig(original, "/run/worker-bundle", "/repo")) as Record<string, unknown>;

  it("serves the bundle as it is, with no build step and the assets folder found from anywhere", () => {
    expect(served.main).toBe("/run/worker-bundle/index.js");
    expect(served.no_bundle).toBe(true);
    expect(served.build).toBeUndefined();
    expect(served.assets).toEqual({ directory: "/repo/worker/dashboard/public" });
  });

  it("is wrangler.toml in everything else: the same objects, migrations, vars and dates", () => {
    const { main: _m, build: _b, assets: _a, ...rest } = ours;
    const { main: _sm, no_bundle: _n, assets: _sa, ...servedRest } = served;
    expect(servedRest).toEqual(rest);
    expect(Object.keys(rest)).toEqual(expect.arrayContaining(["durable_objects", "migrations", "compatibility_date"]));
  });
});
