import { createHash } from "node:crypto";
import { copyFileSync, lstatSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../../test/helpers/processes.js";
import { cachedInstall, testToolsDir } from "../../test/helpers/tool-cache.js";

const PEER_DIR = join(REPO_ROOT, "bench/peer-agents-sdk");

/**
 * The Agents SDK peer's packages (agents, ai, @cloudflare/ai-chat …), which only the bench needs:
 * installed from bench/peer-agents-sdk's own lock file into the tool cache on first use, keyed by
 * the lock's hash, and linked as bench/peer-agents-sdk/node_modules so that wrangler's bundler
 * finds them beside index.js. The project's `npm install` stays without them (their Babel and
 * Rolldown toolchain is most of their weight).
 */
export function ensurePeerPackages(): void {
  const lock = readFileSync(join(PEER_DIR, "package-lock.json"));
  const key = createHash("sha256").update(lock).digest("hex").slice(0, 12);
  const dir = join(testToolsDir(), `bench-peer-agents-sdk-${key}`);
  cachedInstall(dir, `bench peer ${key}`, (staging) => {
    copyFileSync(join(PEER_DIR, "package.json"), join(staging, "package.json"));
    copyFileSync(join(PEER_DIR, "package-lock.json"), join(staging, "package-lock.json"));
    return ["ci"];
  });
  const link = join(PEER_DIR, "node_modules");
  try {
    lstatSync(link);
    rmSync(link, { recursive: true, force: true }); // a link to an older lock's install
  } catch {
    // no link yet
  }
  symlinkSync(join(dir, "node_modules"), link, "dir");
}
