import { readFileSync } from "node:fs";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * wrangler.toml's `workers-ai` environment is the same worker plus the `AI` binding. Wrangler
 * environments inherit no bindings and no vars, so the environment repeats them: a Durable Object
 * or var added at the top level and forgotten there would be missing only when deployed with
 * Workers AI. This keeps the two in step, and plain `wrangler dev` free of the binding that needs
 * a Cloudflare login.
 */

const DoBinding = z.object({ name: z.string(), class_name: z.string() }).strict();
const KvBinding = z.object({ binding: z.string() }).strict();
const Bindings = z.object({
  name: z.string().optional(),
  vars: z.record(z.string(), z.string()).default({}),
  durable_objects: z.object({ bindings: z.array(DoBinding) }).optional(),
  kv_namespaces: z.array(KvBinding).optional(),
  ai: z.object({ binding: z.string() }).strict().optional(),
});
const WranglerToml = Bindings.extend({
  env: z.record(z.string(), Bindings.passthrough()).default({}),
}).passthrough();

const toml = WranglerToml.parse(parse(readFileSync(new URL("../../../wrangler.toml", import.meta.url), "utf8")));
const env = toml.env["workers-ai"];

describe("wrangler.toml environments", () => {
  it("declares no Workers AI binding at the top level, so plain `wrangler dev` needs no login", () => {
    expect(toml.ai).toBeUndefined();
  });

  it("has a workers-ai environment that deploys the same worker with the AI binding", () => {
    expect(env).toBeDefined();
    expect(env?.name).toBe(toml.name);
    expect(env?.ai).toEqual({ binding: "AI" });
  });

  it("repeats every Durable Object and KV binding and var of the top level, and adds no others", () => {
    expect(env?.durable_objects?.bindings).toEqual(toml.durable_objects?.bindings);
    expect(env?.kv_namespaces).toEqual(toml.kv_namespaces);
    expect(env?.vars).toEqual(toml.vars);
  });

  it("traces every worker, the workers-ai environment by inheriting the top level's observability", () => {
    const traces = z
      .object({
        observability: z.object({ traces: z.object({ enabled: z.boolean(), head_sampling_rate: z.number() }) }),
      })
      .parse(toml).observability.traces;
    expect(traces.enabled).toBe(true);
    expect(traces.head_sampling_rate).toBeGreaterThan(0);
    expect(env).not.toHaveProperty("observability");
  });

  it("sets nothing else an environment would not inherit", () => {
    const extra = Object.keys(env ?? {}).filter(
      (k) => !["name", "ai", "vars", "durable_objects", "kv_namespaces"].includes(k),
    );
    expect(extra).toEqual([]);
  });
});
