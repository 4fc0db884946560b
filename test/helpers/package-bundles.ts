import { join } from "node:path";
import { REPO_ROOT } from "./processes.js";

/** What a package's bin is called, by package folder; the bin runs dist/ when there is no source beside it. */
export const PACKAGE_BINS = {
  "device-agent": "bin/edgeloop-agent.js",
  bridge: "bin/edgeloop-bridge.js",
  cli: "bin/edgeloop.js",
} as const;

export type PackageName = keyof typeof PACKAGE_BINS;

export const packageBinVar = (pkg: PackageName) => `EDGELOOP_TEST_BIN_${pkg.replace("-", "_").toUpperCase()}`;

/**
 * The bin an end-to-end test runs for `pkg`: the one the run's global setup (package-bundles-setup.ts) laid out as the installed
 * package (bin/, dist/ and package.json, as `npm pack` makes it), or else the repository's, which
 * runs the source through tsx (a file run on its own, the benchmark).
 */
export function packageBin(pkg: PackageName): string {
  return process.env[packageBinVar(pkg)] ?? join(REPO_ROOT, pkg, PACKAGE_BINS[pkg]);
}
