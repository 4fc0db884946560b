/**
 * Packs the device agent into one tarball at the path given (scripts/agent-tarball.mjs calls it):
 * the same files `npm pack -w device-agent` packs (its package.json's `files`), built by the same
 * bundlePackage() its prepack runs, but in a staging folder of its own, so that it never writes
 * into device-agent/ while another pack of it (a test's, a user's) runs there.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { bundlePackage } from "./bundle-package.js";

const target = resolve(process.argv[2] ?? "edgeloop-agent.tgz");
const agentDir = resolve(import.meta.dirname, "../device-agent");
const staging = mkdtempSync(join(tmpdir(), "edgeloop-agent-pack-"));
try {
  const pkg = join(staging, "device-agent");
  for (const part of ["package.json", "bin", "systemd"])
    cpSync(join(agentDir, part), join(pkg, part), { recursive: true });
  await bundlePackage(agentDir, pkg);
  // The scripts are the repository's (prepack builds in place); the staging copy is built already.
  execFileSync("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", staging], {
    cwd: pkg,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const packed = readdirSync(staging).find((f) => f.endsWith(".tgz"));
  if (!packed) throw new Error("npm pack made no tarball");
  mkdirSync(dirname(target), { recursive: true });
  // Moved into place whole: a request for it never sees half a file.
  renameSync(join(staging, packed), `${target}.tmp`);
  renameSync(`${target}.tmp`, target);
} finally {
  rmSync(staging, { recursive: true, force: true });
}
