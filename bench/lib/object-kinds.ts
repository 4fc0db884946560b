/**
 * Which Durable Object classes exist once per deployment: those durable-objects/addresses.ts
 * reaches by a fixed name (`stub<…>(env.X, "global")`), mapped from binding to class through
 * wrangler.toml. Read from the product's own files, so an object that becomes sharded (its name
 * taken from a key, device, pool or tenant) stops counting as per-deployment without touching the
 * bench. docs/scale.md relies on none of them being on a message's or a tool round's path.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { REPO_ROOT } from "../../test/helpers/processes.js";

/** Binding names reached by a literal object name, from the source of addresses.ts. */
export function singleNamedBindings(addressesSource: string): string[] {
  const found = addressesSource.matchAll(/stub<\w+>\(\s*env\.(\w+),\s*["'`][^"'`$]*["'`]\s*\)/g);
  return [...new Set([...found].map((m) => m[1]!))];
}

/** The classes of the product's per-deployment objects, by class name. */
export function perDeploymentClasses(): string[] {
  const source = readFileSync(join(REPO_ROOT, "durable-objects/addresses.ts"), "utf8");
  const config = parse(readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8")) as {
    durable_objects: { bindings: { name: string; class_name: string }[] };
  };
  const byBinding = new Map(config.durable_objects.bindings.map((b) => [b.name, b.class_name]));
  return singleNamedBindings(source).flatMap((b) => (byBinding.has(b) ? [byBinding.get(b)!] : []));
}
