import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";

/**
 * Runs `binary` the way the agent does, minus the agent: own process group, stdin = the
 * parameters as JSON, stdout and stderr collected, done when the process has closed its pipes.
 * Resolves with the time that took, in ms. This is the device-side floor of a tool call.
 */
export function spawnDirect(binary: string, cwd: string, stdin = "{}"): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [], { cwd, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", () => undefined);
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0) reject(new Error(`${binary} exited ${code}`));
      else resolve(performance.now() - started);
    });
    // A tool that never reads its parameters closes stdin early: EPIPE is expected, not a failure.
    child.stdin.on("error", () => undefined);
    child.stdin.end(stdin);
  });
}
