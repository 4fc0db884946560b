// bash: runs in the workspace, passes output through, keeps the command's exit code.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, runTool, tempDir } from "./skill-runner.js";

afterAll(removeTempDirs);

const bash = (params: Record<string, unknown>, workspace = tempDir("bash")) =>
  runTool("desktop-tools", "dt-bash", params, { workspace });

describe("bash", () => {
  it("runs in the workspace and returns stdout", async () => {
    const workspace = tempDir("bash");
    const run = await bash({ command: "pwd; echo hello > out.txt; cat out.txt" }, workspace);
    expect(run).toMatchObject({ code: 0, stdout: `${workspace}\nhello\n` });
    expect(readFileSync(path.join(workspace, "out.txt"), "utf8")).toBe("hello\n");
  });

  it("passes stderr through and exits with the command's code", async () => {
    const run = await bash({ command: "echo partial; echo broken >&2; exit 3" });
    expect(run).toMatchObject({ code: 3, stdout: "partial\n", stderr: "broken\n" });
  });

  it("gets the EDGELOOP_* environment", async () => {
    const run = await bash({ command: 'echo "$EDGELOOP_REQUEST_ID"' });
    expect(run.stdout).toBe("req-test-1\n");
  });

  it("kills the command and its children at timeout_ms", async () => {
    const started = Date.now();
    const run = await bash({ command: "sleep 20 & sleep 20; echo never", timeout_ms: 300 });
    expect(run.code).toBe(124);
    expect(run.stderr).toContain("timed out after 300ms");
    expect(run.stdout).not.toContain("never");
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("on SIGTERM from the agent, ends the command's whole group, even jobs ignoring SIGTERM", async () => {
    // A sleep length no other process on the machine will be using, to find leftovers by name.
    const marker = `${31 + Math.floor(Math.random() * 1000)}.${process.pid}`;
    const started = Date.now();
    const run = await runTool(
      "desktop-tools",
      "dt-bash",
      { command: `(trap '' TERM; sleep ${marker}) & sleep ${marker}` },
      {
        workspace: tempDir("bash"),
        onSpawn: (child) => setTimeout(() => child.kill("SIGTERM"), 500),
      },
    );
    expect(run.code).not.toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(leftovers(`sleep ${marker}`)).toBe("");
  });

  it("refuses obviously destructive commands with 77", async () => {
    for (const command of [
      "rm -rf /",
      "rm -fr ~",
      "sudo rm -rf / --no-preserve-root",
      "mkfs.ext4 /dev/sda1",
      "dd if=/dev/zero of=/dev/sda",
      ":(){ :|:& };:",
    ]) {
      const run = await bash({ command });
      expect({ command, code: run.code }).toEqual({ command, code: 77 });
    }
  });

  it("allows ordinary deletes inside the workspace", async () => {
    const run = await bash({ command: "mkdir -p build && rm -rf ./build && echo gone" });
    expect(run).toMatchObject({ code: 0, stdout: "gone\n" });
  });

  it("rejects a missing or empty command with 64", async () => {
    expect((await bash({})).code).toBe(64);
    expect((await bash({ command: "  " })).code).toBe(64);
  });
});

function leftovers(pattern: string): string {
  try {
    return execFileSync("pgrep", ["-f", pattern], { encoding: "utf8" }).trim();
  } catch {
    return ""; // pgrep exits 1 when nothing matches
  }
}
