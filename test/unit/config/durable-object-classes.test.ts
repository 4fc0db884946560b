import { readFileSync } from "node:fs";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * The Durable Object classes wrangler.toml binds stay as few as their jobs need
 * (docs/architecture.md#the-control-plane): a new once-per-deployment job goes into the deployment
 * object unless its load or its alarm says otherwise. Nothing is deployed, so the migrations stay
 * one tag that creates every class.
 */
const MAX_CLASSES = 10;

const DoBinding = z.object({ name: z.string(), class_name: z.string() });
const Section = z.object({ durable_objects: z.object({ bindings: z.array(DoBinding) }) });
const WranglerToml = Section.extend({
  env: z.record(z.string(), Section),
  migrations: z.array(z.object({ tag: z.string(), new_sqlite_classes: z.array(z.string()).optional() }).passthrough()),
});

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");
const toml = WranglerToml.parse(parse(read("wrangler.toml")));
const classesOf = (s: z.infer<typeof Section>) => [...new Set(s.durable_objects.bindings.map((b) => b.class_name))];

describe("wrangler.toml's Durable Object classes", () => {
  const top = classesOf(toml);
  const everywhere = new Set([top, ...Object.values(toml.env).map(classesOf)].flat());

  it(`binds at most ${MAX_CLASSES} classes, counting every environment`, () => {
    expect(top.length).toBeGreaterThan(0);
    expect(everywhere.size).toBeLessThanOrEqual(MAX_CLASSES);
  });

  it("binds the same names to the same classes at the top level and in every environment", () => {
    for (const [name, env] of Object.entries(toml.env))
      expect(env.durable_objects.bindings, name).toEqual(toml.durable_objects.bindings);
  });

  it("binds each class once", () => {
    expect(toml.durable_objects.bindings.map((b) => b.class_name).sort()).toEqual([...top].sort());
  });

  it("has one migration tag, v1, creating exactly the bound classes on SQLite storage", () => {
    expect(toml.migrations.map((m) => m.tag)).toEqual(["v1"]);
    const [v1] = toml.migrations;
    expect(Object.keys(v1!).sort()).toEqual(["new_sqlite_classes", "tag"]);
    expect([...(v1!.new_sqlite_classes ?? [])].sort()).toEqual([...everywhere].sort());
  });

  it("are each exported by the worker's entry point, and no other class is", () => {
    const exported = [...read("worker/index.ts").matchAll(/^export \{ (\w+DO) \}/gm)].map((m) => m[1]);
    expect(exported.sort()).toEqual([...everywhere].sort());
  });
});
