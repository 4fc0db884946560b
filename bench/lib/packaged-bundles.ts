import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { bundlePackage } from "../../scripts/bundle-package.js";
import { REPO_ROOT } from "../../test/helpers/processes.js";
import { tempDir } from "../../test/helpers/temp-dir.js";

/**
 * The agent and the bridge as a device runs them: the bundles their packages ship (built the way
 * `npm pack` builds them), not the source through tsx, whose loader would weigh on every
 * footprint and memory figure. Built once per process, into a temp dir laid out as the package.
 */
let built: Promise<{ agent: string; bridge: string }> | null = null;

export function packagedBundles(): Promise<{ agent: string; bridge: string }> {
  built ??= (async () => {
    const build = async (pkg: string) => {
      const out = tempDir(`edgeloop-${pkg}-package-`);
      copyFileSync(join(REPO_ROOT, pkg, "package.json"), join(out, "package.json"));
      return bundlePackage(join(REPO_ROOT, pkg), out);
    };
    return { agent: await build("device-agent"), bridge: await build("bridge") };
  })();
  return built;
}
