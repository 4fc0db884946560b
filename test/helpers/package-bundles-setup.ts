import { copyFileSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { bundlePackage } from "../../scripts/bundle-package.js";
import { PACKAGE_BINS, type PackageName, packageBinVar } from "./package-bundles.js";
import { REPO_ROOT } from "./processes.js";

/**
 * Vitest global setup for the end-to-end projects: the agent, the bridge and the CLI bundled once
 * per run, as their packs bundle them, instead of tsx compiling their source at every one of the
 * suite's hundred-odd starts of them (a second of CPU each on a 2-core machine). Laid out in the
 * run's temp directory (test-run-dir.ts, listed before this) with the repository's node_modules
 * beside them, where an installed package finds its dependencies (the agent's sharp, playwright).
 */
export default async function setup(): Promise<void> {
  const runDir = process.env.EDGELOOP_TEST_TMP;
  if (!runDir) throw new Error("package-bundles.ts runs after test-run-dir.ts");
  const root = join(runDir, "packages");
  // Each project that lists this setup runs it: the first builds, the others find it done.
  if (process.env[packageBinVar("cli")]?.startsWith(root)) return;
  mkdirSync(root, { recursive: true });
  symlinkSync(join(REPO_ROOT, "node_modules"), join(root, "node_modules"));
  await Promise.all(
    (Object.keys(PACKAGE_BINS) as PackageName[]).map(async (pkg) => {
      const out = join(root, pkg);
      mkdirSync(join(out, "bin"), { recursive: true });
      copyFileSync(join(REPO_ROOT, pkg, "package.json"), join(out, "package.json"));
      copyFileSync(join(REPO_ROOT, pkg, PACKAGE_BINS[pkg]), join(out, PACKAGE_BINS[pkg]));
      await bundlePackage(join(REPO_ROOT, pkg), out);
      process.env[packageBinVar(pkg)] = join(out, PACKAGE_BINS[pkg]);
    }),
  );
}
