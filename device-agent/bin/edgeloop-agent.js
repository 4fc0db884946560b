#!/usr/bin/env node
// The agent is TypeScript, and a device needs only Node 20, no build step. At start, esbuild (which
// comes with tsx) bundles the source into one ES module in a private temp dir; it is imported, then
// deleted. Running tsx itself instead would keep its loader thread and caches in the daemon for good
// (~30 MB), and every tool spawn forks the agent: the fork costs more the bigger the agent is.
// If bundling fails, tsx loads the source as before. EDGELOOP_AGENT_LOADER=tsx forces that (stack
// traces then point into the .ts files).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const entry = fileURLToPath(new URL("../src/main.ts", import.meta.url));

/** The source bundled into a file in a private temp dir, or why not. */
function bundle() {
  let dir;
  try {
    const fromTsx = createRequire(createRequire(import.meta.url).resolve("tsx/package.json"));
    const esbuild = join(fromTsx.resolve("esbuild/package.json"), "../bin/esbuild");
    const code = execFileSync(
      esbuild,
      [
        entry,
        "--bundle",
        "--platform=node",
        "--format=esm",
        "--target=node20",
        "--log-level=error",
        // ws tries these optional native add-ons and does without them
        "--external:bufferutil",
        "--external:utf-8-validate",
        // Modules that find files next to them (version.ts: package.json) see the source tree.
        `--define:import.meta.url=${JSON.stringify(pathToFileURL(entry).href)}`,
        // Bundled CommonJS packages require() Node's built-ins.
        `--banner:js=import { createRequire as __edgeloopRequire } from "node:module"; const require = __edgeloopRequire(${JSON.stringify(entry)});`,
      ],
      { stdio: ["ignore", "pipe", "pipe"], maxBuffer: 256 * 1024 * 1024 },
    );
    dir = mkdtempSync(join(tmpdir(), "edgeloop-agent-bundle-"));
    const file = join(dir, "agent.mjs");
    writeFileSync(file, code, { mode: 0o600 });
    return { ok: true, dir, file };
  } catch (e) {
    if (dir) rmSync(dir, { recursive: true, force: true });
    const stderr = e && typeof e === "object" && "stderr" in e ? String(e.stderr).trim().split("\n")[0] : "";
    return { ok: false, error: stderr || (e instanceof Error ? e.message : String(e)) };
  }
}

const built = process.env.EDGELOOP_AGENT_LOADER === "tsx" ? null : bundle();
if (built?.ok) {
  const cleanup = () => rmSync(built.dir, { recursive: true, force: true });
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
