import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Where tests put their directories: a test run starts hundreds of workers, agents and brokers,
 * each with its own. Under vitest that is one directory per run, made and removed by the global
 * setup (test-run-dir.ts): its workers are ended without running exit handlers. Elsewhere (the
 * benchmark) each directory goes when the process exits, by which time what used it has stopped.
 */
const runDir = process.env.EDGELOOP_TEST_TMP;
const made = new Set<string>();

if (!runDir) {
  process.once("exit", () => {
    for (const dir of made) {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // still being written by a child that outlived us: left to the OS's temp cleanup
      }
    }
  });
}

/** A new directory for one test or benchmark, removed with the run. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(runDir ?? tmpdir(), prefix));
  if (!runDir) made.add(dir);
  return dir;
}
