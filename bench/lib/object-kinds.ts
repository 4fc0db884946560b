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

/** Bindings reached by a literal object name, with that name, from the source of addresses.ts. */
export function singleNamedObjects(addressesSource: string): { binding: string; name: string }[] {
  const found = addressesSource.matchAll(/stub<\w+>\(\s*env\.(\w+),\s*["'`]([^"'`$]*)["'`]\s*\)/g);
  return [...found].map((m) => ({ binding: m[1]!, name: m[2]! }));
}

/** Binding names reached by a literal object name, from the source of addresses.ts. */
export function singleNamedBindings(addressesSource: string): string[] {
  return [...new Set(singleNamedObjects(addressesSource).map((o) => o.binding))];
}

function productObjects(): { class: string; name: string }[] {
  const source = readFileSync(join(REPO_ROOT, "durable-objects/addresses.ts"), "utf8");
  const config = parse(readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8")) as {
    durable_objects: { bindings: { name: string; class_name: string }[] };
  };
  const byBinding = new Map(config.durable_objects.bindings.map((b) => [b.name, b.class_name]));
  return singleNamedObjects(source).flatMap((o) =>
    byBinding.has(o.binding) ? [{ class: byBinding.get(o.binding)!, name: o.name }] : [],
  );
}

/** The classes of the product's per-deployment objects, by class name. */
export function perDeploymentClasses(): string[] {
  return [...new Set(productObjects().map((o) => o.class))];
}

/**
 * The product's per-deployment objects as kinds, `Class "name"`: a class may also have objects
 * named by a key (the registry has one per pool beside the global one), which are not.
 */
export function perDeploymentKinds(): string[] {
  return productObjects().map((o) => `${o.class} "${o.name}"`);
}

/**
 * The kind a counted object is: `Class "name"` for a per-deployment object, else its class (all
 * of a sharded class's objects are one kind). `name` is the object's name as the meter saw it.
 */
export function objectKind(perDeployment: string[], cls: string, name: string): string {
  const kind = `${cls} "${name}"`;
  return perDeployment.includes(kind) ? kind : cls;
}
