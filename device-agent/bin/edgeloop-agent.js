#!/usr/bin/env node
// The agent is TypeScript, and a device needs only Node 20, no build step. At first start, esbuild
// (which comes with tsx) bundles the source into one ES module, kept in the user's cache directory
// ($XDG_CACHE_HOME or ~/.cache, `edgeloop-agent/`, private to the user) with the list of files it
// was built from; later starts import it as long as none of those files changed (same size and
// mtime), which saves the bundling (~0.3-0.5 s, most of a start). Where nothing can be cached, the
// bundle goes to a private temp dir and is deleted after import, as before. Running tsx itself
// instead would keep its loader thread and caches in the daemon for good (~30 MB), and every tool
// spawn forks the agent: the fork costs more the bigger the agent is. If bundling fails, tsx loads
// the source. EDGELOOP_AGENT_LOADER=tsx forces that (stack traces then point into the .ts files).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const entry = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const root = fileURLToPath(new URL("../../", import.meta.url));

/** The cache directory, if there is a home for it; created private to this user. */
function cacheDir() {
  const base = process.env.XDG_CACHE_HOME || (homedir() ? join(homedir(), ".cache") : "");
  return base ? join(base, "edgeloop-agent") : null;
}

/** One bundle per installation (its source path), so two installs never take turns rebuilding. */
const key = createHash("sha256").update(entry).digest("hex").slice(0, 16);
const BUNDLE = `agent-${key}.mjs`;
const MANIFEST = `bundle-${key}.json`;

/** Only code this user alone can have written is imported: owned by us, writable by no one else. */
function isPrivate(path) {
  const st = statSync(path);
  return (typeof process.getuid !== "function" || st.uid === process.getuid()) && (st.mode & 0o022) === 0;
}

/** The cached bundle, if it was built from exactly the files there are now (same Node, same paths). */
function cached() {
  const dir = cacheDir();
  if (!dir) return null;
  try {
    const manifest = JSON.parse(readFileSync(join(dir, MANIFEST), "utf8"));
    if (manifest.entry !== entry || manifest.node !== process.version) return null;
    const file = join(dir, BUNDLE);
    if (!isPrivate(dir) || !isPrivate(file) || statSync(file).size !== manifest.size) return null;
    for (const [path, size, mtimeMs] of manifest.inputs) {
      const st = statSync(path);
      if (st.size !== size || st.mtimeMs !== mtimeMs) return null;
    }
    return { ok: true, file };
  } catch {
    return null;
  }
}

/** Keeps a fresh bundle for the next start; any failure only means the next start bundles again. */
function keep(file, metafile) {
  const dir = cacheDir();
  if (!dir) return;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!isPrivate(dir)) return;
    const meta = JSON.parse(readFileSync(metafile, "utf8"));
    // This file too: its esbuild flags shape the bundle as much as the sources do.
    const paths = [...Object.keys(meta.inputs).map((p) => resolve(root, p)), fileURLToPath(import.meta.url)];
    const inputs = paths.map((path) => {
      const st = statSync(path);
      return [path, st.size, st.mtimeMs];
    });
    const code = readFileSync(file);
    // Written under other names and renamed, so a start never reads half a file.
    const tmp = `.${process.pid}-${Date.now()}`;
    writeFileSync(join(dir, `${BUNDLE}${tmp}`), code, { mode: 0o600 });
    renameSync(join(dir, `${BUNDLE}${tmp}`), join(dir, BUNDLE));
    const manifest = { entry, node: process.version, size: code.length, inputs };
    writeFileSync(join(dir, `${MANIFEST}${tmp}`), JSON.stringify(manifest), { mode: 0o600 });
    renameSync(join(dir, `${MANIFEST}${tmp}`), join(dir, MANIFEST));
  } catch {
    // a read-only or full disk: bundle at every start, as without a cache
  }
}

/** The source bundled into a file in a private temp dir, or why not. */
function bundle() {
  let dir;
  try {
    dir = mkdtempSync(join(tmpdir(), "edgeloop-agent-bundle-"));
    const file = join(dir, BUNDLE);
    const metafile = join(dir, "meta.json");
    const fromTsx = createRequire(createRequire(import.meta.url).resolve("tsx/package.json"));
    const esbuild = join(fromTsx.resolve("esbuild/package.json"), "../bin/esbuild");
    execFileSync(
      esbuild,
      [
        entry,
        `--outfile=${file}`,
        `--metafile=${metafile}`,
        "--bundle",
        "--platform=node",
        "--format=esm",
        "--target=node20",
        "--log-level=error",
        // No comments or indentation: a smaller source, and ASCII only (a comment's "→" or "—"
        // would make V8 hold the whole ~2 MB source as two bytes a character, for the daemon's life).
        "--minify-whitespace",
        // ws tries these optional native add-ons and does without them
        "--external:bufferutil",
        "--external:utf-8-validate",
        // Modules that find files next to them (version.ts: package.json) see the source tree.
        `--define:import.meta.url=${JSON.stringify(pathToFileURL(entry).href)}`,
        // Bundled CommonJS packages require() Node's built-ins.
        `--banner:js=import { createRequire as __edgeloopRequire } from "node:module"; const require = __edgeloopRequire(${JSON.stringify(entry)});`,
      ],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 256 * 1024 * 1024 },
    );
    keep(file, metafile);
    return { ok: true, dir, file };
  } catch (e) {
    if (dir) rmSync(dir, { recursive: true, force: true });
    const stderr = e && typeof e === "object" && "stderr" in e ? String(e.stderr).trim().split("\n")[0] : "";
    return { ok: false, error: stderr || (e instanceof Error ? e.message : String(e)) };
  }
}

const built = process.env.EDGELOOP_AGENT_LOADER === "tsx" ? null : (cached() ?? bundle());
if (built?.ok) {
  const cleanup = () => built.dir && rmSync(built.dir, { recursive: true, force: true });
  // A bad setting exits while the module is still being evaluated.
  process.once("exit", cleanup);
  try {
    await import(pathToFileURL(built.file).href);
  } finally {
    process.off("exit", cleanup);
    cleanup();
  }
} else {
  if (built) process.stderr.write(`edgeloop-agent: bundling failed (${built.error}); loading the source with tsx\n`);
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/main.ts");
}
