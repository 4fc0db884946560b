// wrangler.toml's `[build] command`: run before every `wrangler dev` and `wrangler deploy`, so that
// the worker serves the device agent packed from this same tree at /agent/edgeloop-agent.tgz (a
// static asset; the install script at GET /install installs it, docs/device-agent.md). Plain
// JavaScript so that it runs on whatever Node wrangler's shell finds, and cheap when nothing
// changed (the e2e suite starts `wrangler dev` many times): it hashes the agent's inputs and
// re-packs (scripts/pack-agent.ts) only when the hash differs from the one the tarball was made from.
// Several `wrangler dev` may start at once: one packs, the others wait on a lock and find it fresh.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const TARBALL = join(ROOT, "worker/dashboard/public/agent/edgeloop-agent.tgz");
const STAMP = join(ROOT, ".wrangler/agent-tarball.sha256");
const LOCK = join(ROOT, ".wrangler/agent-tarball.lock");
/** What the packed agent is made of: its sources, the packages it bundles, its skills, the build. */
const INPUTS = [
  "device-agent",
  "edge-client",
  "protocol",
  "skills",
  "scripts/bundle-package.ts",
  "scripts/pack-agent.ts",
  "package-lock.json",
];
const SKIP = new Set(["node_modules", "dist"]);
const LOCK_STALE_MS = 180_000;

function files(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  // device-agent/skills is prepack's copy of skills/ while an `npm pack -w device-agent` runs.
  return readdirSync(path)
    .filter((name) => !SKIP.has(name) && !(name === "skills" && path.endsWith("device-agent")))
    .sort()
    .flatMap((name) => files(join(path, name)));
}

function inputsHash() {
  const hash = createHash("sha256");
  for (const file of INPUTS.flatMap((p) => files(join(ROOT, p)))) {
    hash.update(`${relative(ROOT, file)}\0`);
    hash.update(readFileSync(file));
  }
  return hash.digest("hex");
}

const fresh = (hash) => existsSync(TARBALL) && existsSync(STAMP) && readFileSync(STAMP, "utf8") === hash;

function takeLock() {
  mkdirSync(dirname(LOCK), { recursive: true });
  const until = Date.now() + LOCK_STALE_MS;
  for (;;) {
    try {
      mkdirSync(LOCK);
      return;
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
      if (Date.now() - statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs > LOCK_STALE_MS || Date.now() > until)
        rmSync(LOCK, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
}

const hash = inputsHash();
if (!fresh(hash)) {
  takeLock();
  try {
    if (!fresh(hash)) {
      const tsx = join(ROOT, "node_modules/tsx/dist/cli.mjs");
      execFileSync(process.execPath, [tsx, join(ROOT, "scripts/pack-agent.ts"), TARBALL], { stdio: "inherit" });
      writeFileSync(STAMP, hash);
      console.log(`packed the device agent into ${relative(ROOT, TARBALL)}`);
    }
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
