import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";

export const REPO_ROOT = new URL("../../", import.meta.url).pathname;

/** A child process with its output kept for assertions and for failure messages. */
export type Child = { proc: ChildProcess; output: () => string; stop: (signal?: NodeJS.Signals) => Promise<void> };

/** Every child started here and not yet exited, so a run cut short can end them all (`stopAll`). */
const live = new Set<Child>();

/** Ends every child still running: for a benchmark or soak stopped by a signal or a time limit. */
export async function stopAll(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  await Promise.all([...live].map((c) => c.stop(signal)));
}

export function startChild(
  cmd: string,
  args: string[],
  opts: { env?: Record<string, string>; cwd?: string; name: string },
): Child {
  const proc = spawn(cmd, args, {
    cwd: opts.cwd ?? REPO_ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
    // Own process group, so stop() also ends what it started (wrangler runs workerd under it).
    detached: true,
  });
  let out = "";
  const keep = (chunk: Buffer) => {
    out += chunk.toString();
    if (out.length > 2_000_000) out = out.slice(-1_000_000);
    if (process.env.E2E_VERBOSE) process.stderr.write(`[${opts.name}] ${chunk}`);
  };
  proc.stdout!.on("data", keep);
  proc.stderr!.on("data", keep);
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = once(proc, "exit");
    try {
      process.kill(-proc.pid!, signal);
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-proc.pid!, "SIGKILL");
      } catch {
        /* already gone */
      }
    }, 5000);
    await exited;
    clearTimeout(timer);
  };
  const child = { proc, output: () => out, stop };
  live.add(child);
  proc.once("exit", () => live.delete(child));
  return child;
}
