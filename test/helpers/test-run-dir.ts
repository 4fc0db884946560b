import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Vitest global setup: one temp directory for the whole run, handed to the test workers through
 * the environment (temp-dir.ts puts everything under it) and removed once every file has finished.
 */
export default function setup(): () => void {
  // Each vitest project that lists this file runs it: the first makes the directory, the others
  // share it (every teardown runs after all files, so the first one's removal is not early).
  if (process.env.EDGELOOP_TEST_TMP) return () => {};
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-test-run-"));
  process.env.EDGELOOP_TEST_TMP = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
