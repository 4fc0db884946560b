import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "smol-toml";
import { type LocalWorker, startLocalWorker } from "../../test/helpers/local-worker.js";
import { REPO_ROOT } from "../../test/helpers/processes.js";
import { tempDir } from "../../test/helpers/temp-dir.js";

/**
 * The product's worker with every Durable Object counted (cost-meter.ts), for the cost scenario:
 * a generated entry re-exports worker/index.ts with each class of wrangler.toml's bindings wrapped
 * by `meteredClass`, and a copy of wrangler.toml points at it. Nothing in the product changes; a
 * class added to wrangler.toml is metered without touching the benchmark.
 */
export async function startCostWorker(vars: Record<string, string>): Promise<LocalWorker> {
  const dir = tempDir("edgeloop-cost-worker-");
  const config = parse(readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8")) as {
    main: string;
    durable_objects: { bindings: { class_name: string }[] };
    assets?: { directory: string };
  };
  const classes = [...new Set(config.durable_objects.bindings.map((b) => b.class_name))];
  const product = JSON.stringify(join(REPO_ROOT, "worker/index.ts"));
  const meter = JSON.stringify(join(REPO_ROOT, "bench/lib/cost-meter.ts"));
  writeFileSync(
    join(dir, "entry.ts"),
    [
      `import app, * as product from ${product};`,
      `import { meteredClass } from ${meter};`,
      ...classes.map((c) => `export const ${c} = meteredClass(product.${c}, ${JSON.stringify(c)});`),
      "export default app;",
      "",
    ].join("\n"),
  );
  config.main = join(dir, "entry.ts");
  // The copy lives elsewhere; paths in it are relative to the config file.
  if (config.assets) config.assets.directory = join(REPO_ROOT, config.assets.directory);
  writeFileSync(join(dir, "wrangler.toml"), stringify(config));
  return startLocalWorker({
    config: join(dir, "wrangler.toml"),
    name: "cost-worker",
    vars: { ...vars, COST_METER: "on" },
    inspector: false,
  });
}
