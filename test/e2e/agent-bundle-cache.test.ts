/**
 * `edgeloop-agent` keeps the bundle of its source between starts (device-agent/bin/edgeloop-agent.js):
 * a start imports the kept bundle only while every file it was built from is unchanged and only
 * this user can have written it; otherwise it bundles again. Real bin, real esbuild, `--help` as
 * the quickest full start.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/processes.js";
import { tempDir } from "../helpers/temp-dir.js";

const BIN = join(REPO_ROOT, "device-agent/bin/edgeloop-agent.js");

function start(cache: string): string {
  const run = spawnSync(process.execPath, [BIN, "--help"], {
    encoding: "utf8",
    env: { ...process.env, XDG_CACHE_HOME: cache },
    timeout: 60_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}

function kept(cache: string): { bundle: string; manifest: string } {
  const dir = join(cache, "edgeloop-agent");
  const names = readdirSync(dir);
  const bundle = names.find((n) => /^agent-[0-9a-f]{16}\.mjs$/.test(n));
  const manifest = names.find((n) => /^bundle-[0-9a-f]{16}\.json$/.test(n));
  expect(bundle && manifest, names.join(", ")).toBeTruthy();
  return { bundle: join(dir, bundle!), manifest: join(dir, manifest!) };
}

/** Puts a line that prints `text` in front of the kept bundle, and records its new size. */
function mark(files: { bundle: string; manifest: string }, text: string): void {
  writeFileSync(
    files.bundle,
    `process.stdout.write(${JSON.stringify(`${text}\n`)});\n${readFileSync(files.bundle, "utf8")}`,
  );
  const m = JSON.parse(readFileSync(files.manifest, "utf8")) as { size: number };
  m.size = statSync(files.bundle).size;
  writeFileSync(files.manifest, JSON.stringify(m));
}

describe("edgeloop-agent's kept bundle", () => {
  it("is written private to the user on the first start and imported as it is on the next", () => {
    const cache = tempDir("edgeloop-bundle-cache-");
    const help = start(cache);
    expect(help).toContain("edgeloop-agent");
    const files = kept(cache);
    const { bundle, manifest } = files;
    expect(statSync(join(cache, "edgeloop-agent")).mode & 0o777).toBe(0o700);
    expect(statSync(bundle).mode & 0o777).toBe(0o600);
    const inputs = (JSON.parse(readFileSync(manifest, "utf8")) as { inputs: [string, number, number][] }).inputs;
    expect(inputs.map(([p]) => p)).toContain(join(REPO_ROOT, "device-agent/src/main.ts"));

    // What runs is the kept file: a marked copy of it, with its manifest still valid, is what prints.
    mark(files, "from the kept bundle");
    expect(start(cache)).toContain("from the kept bundle");
  }, 90_000);

  it("is built again when a file it came from changed, or when others could have written it", () => {
    const cache = tempDir("edgeloop-bundle-cache-");
    start(cache);
    const files = kept(cache);
    const { bundle, manifest } = files;

    // A source file's recorded size no longer matches: rebuilt, so the mark is gone.
    mark(files, "stale bundle ran");
    const m = JSON.parse(readFileSync(manifest, "utf8")) as { inputs: [string, number, number][] };
    m.inputs[0]![1] += 1;
    writeFileSync(manifest, JSON.stringify(m));
    expect(start(cache)).not.toContain("stale bundle ran");

    // Group-writable: not trusted, rebuilt private again.
    mark(files, "stale bundle ran");
    chmodSync(bundle, 0o620);
    expect(start(cache)).not.toContain("stale bundle ran");
    expect(statSync(bundle).mode & 0o777).toBe(0o600);
  }, 90_000);
});
