import { join, resolve } from "node:path";
import { parse, stringify } from "smol-toml";
import { REPO_ROOT } from "./processes.js";

/** Where the run's global setup (worker-bundle-setup.ts) says its prebuilt worker's config is. */
export const WORKER_CONFIG_VAR = "EDGELOOP_TEST_WORKER_CONFIG";

/**
 * The config a test starts the product's worker with: the run's prebuilt bundle when the global
 * setup made one, or else wrangler.toml, bundled at start (a file or benchmark run on its own).
 */
export function productWorkerConfig(): string {
  return process.env[WORKER_CONFIG_VAR] ?? join(REPO_ROOT, "wrangler.toml");
}

type WranglerToml = { main: string; build?: unknown; assets?: { directory: string }; [key: string]: unknown };

/**
 * wrangler.toml's text made to serve the bundle `wrangler deploy --dry-run --outdir bundleDir`
 * wrote, as it is: `main` is the bundle, `no_bundle` set, no `[build]` (the dry run ran it), and
 * the assets folder absolute, since a config's paths are read from its own folder. The rest
 * (objects, migrations, vars, compatibility date) is wrangler.toml's own.
 */
export function servedConfig(wranglerToml: string, bundleDir: string, root = REPO_ROOT): string {
  const { build: _ranByTheDryRun, ...config } = parse(wranglerToml) as WranglerToml;
  return stringify({
    ...config,
    main: join(bundleDir, "index.js"),
    no_bundle: true,
    ...(config.assets ? { assets: { ...config.assets, directory: resolve(root, config.assets.directory) } } : {}),
  });
}
