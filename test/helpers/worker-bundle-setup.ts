import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./processes.js";
import { servedConfig, WORKER_CONFIG_VAR } from "./worker-bundle.js";

/**
 * Vitest global setup for the end-to-end projects: the worker bundled once per run, by wrangler
 * itself (`wrangler deploy --dry-run --outdir`, the bundle a deploy ships), and a copy of
 * wrangler.toml that serves that bundle as it is (worker-bundle.ts). Every `wrangler dev` the
 * files start on the product's worker (local-worker.ts) then skips bundling 4 MB with esbuild: a
 * start took 7.2–8.1 CPU-s instead of 10.5 on an idle machine, and the suite starts about 65. The
 * files whose subject is how users start the worker (plain-wrangler-dev, npm-run-dev, start) run
 * wrangler on wrangler.toml, bundling at start as users' `wrangler dev` does.
 */
export default function setup(): void {
  const runDir = process.env.EDGELOOP_TEST_TMP;
  if (!runDir) throw new Error("worker-bundle-setup.ts runs after test-run-dir.ts");
  const out = join(runDir, "worker-bundle");
  // Each project that lists this setup runs it: the first builds, the others find it done.
  if (process.env[WORKER_CONFIG_VAR]?.startsWith(out)) return;
  // The dry run also runs wrangler.toml's [build] command: the agent tarball the assets serve.
  execFileSync(join(REPO_ROOT, "node_modules/.bin/wrangler"), ["deploy", "--dry-run", "--outdir", out], {
    cwd: REPO_ROOT,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", NO_COLOR: "1" },
    stdio: "pipe",
  });
  const file = join(out, "wrangler.toml");
  writeFileSync(file, servedConfig(readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8"), out));
  process.env[WORKER_CONFIG_VAR] = file;
}
