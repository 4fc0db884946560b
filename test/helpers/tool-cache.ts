/**
 * The cache outside the repository where the suite and the bench keep what `npm install` of the
 * project must not bring (Node 24 for OpenClaw and the MCP conformance suite, the bench's Agents
 * SDK peer): `EDGELOOP_TEST_TOOLS_DIR`, or `~/.cache/edgeloop-test-tools`. scripts/node-on-path.sh
 * installs the developers' Node 24 into the same place. One folder per exact set of packages,
 * filled on first use and reused after.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export function testToolsDir(): string {
  return process.env.EDGELOOP_TEST_TOOLS_DIR ?? join(homedir(), ".cache", "edgeloop-test-tools");
}

/**
 * `dir` filled once by `fill(staging)`, an npm command run in a staging folder. Concurrent callers
 * each fill their own staging folder and the first rename wins, so nobody sees half an install.
 */
export function cachedInstall(dir: string, what: string, fill: (staging: string) => string[]): void {
  if (existsSync(join(dir, ".installed"))) return;
  const staging = `${dir}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  // --ignore-scripts: nothing the packages ship runs at install (npm 11 would skip them anyway).
  const args = [...fill(staging), "--no-audit", "--no-fund", "--ignore-scripts"];
  const npm = spawnSync("npm", args, { cwd: staging, encoding: "utf8", timeout: 600_000 });
  if (npm.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`npm ${args.join(" ")} (${what}) failed:\n${npm.stderr || npm.error}`);
  }
  writeFileSync(join(staging, ".installed"), `${what}\n`);
  try {
    renameSync(staging, dir);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another run installed it first
    if (!existsSync(join(dir, ".installed"))) throw new Error(`could not install ${what} into ${dir}`);
  }
}
