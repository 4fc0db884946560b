import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const Answer = z.object({ id: z.number(), ms: z.number().optional(), error: z.string().optional() });

/**
 * The device-side floor of a tool call: `binary` run the way the agent runs it, minus the agent
 * (own process group, stdin = the parameters as JSON, stdout and stderr collected, done when its
 * pipes close), timed inside a lean helper process (spawn-floor.mjs) so the spawn is not charged
 * for this process's size. One helper per ballast size serves the whole run; requests are sequential.
 */
type Helper = { proc: ChildProcessWithoutNullStreams; waiting: Map<number, (a: z.infer<typeof Answer>) => void> };
/** One helper per ballast size (MB of extra anonymous memory; 0 is the lean floor). */
const helpers = new Map<number, Helper>();
let nextId = 1;

function startHelper(ballastMb: number): Helper {
  const proc = spawn(
    process.execPath,
    [fileURLToPath(new URL("./spawn-floor.mjs", import.meta.url)), String(ballastMb)],
    { stdio: ["pipe", "pipe", "pipe"] },
  );
  const waiting = new Map<number, (a: z.infer<typeof Answer>) => void>();
  createInterface({ input: proc.stdout }).on("line", (line) => {
    const answer = Answer.parse(JSON.parse(line));
    waiting.get(answer.id)?.(answer);
    waiting.delete(answer.id);
  });
  proc.once("exit", () => {
    for (const resolve of waiting.values()) resolve({ id: 0, error: "spawn-floor helper exited" });
    if (helpers.get(ballastMb)?.proc === proc) helpers.delete(ballastMb);
  });
  return { proc, waiting };
}

function helperFor(ballastMb: number): Helper {
  let helper = helpers.get(ballastMb);
  if (!helper) {
    helper = startHelper(ballastMb);
    helpers.set(ballastMb, helper);
  }
  return helper;
}

/** The pid of the helper that spawns for `ballastMb` (started if need be), to read its memory. */
export function directSpawnPid(ballastMb = 0): number {
  return helperFor(ballastMb).proc.pid!;
}

export function spawnDirect(binary: string, cwd: string, stdin = "{}", ballastMb = 0, parallel = 1): Promise<number> {
  const { proc, waiting } = helperFor(ballastMb);
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, (a) => (a.ms !== undefined ? resolve(a.ms) : reject(new Error(a.error ?? "no answer"))));
    proc.stdin.write(`${JSON.stringify({ id, binary, cwd, stdin, n: parallel })}\n`);
  });
}

/** `n` spawns of `binary` started at once from the lean process; ms until the last one is done. */
export const spawnParallel = (binary: string, cwd: string, n: number): Promise<number> =>
  spawnDirect(binary, cwd, "{}", 0, n);

/** Stop the helpers (end of a run). */
export function stopDirectSpawn(): void {
  for (const h of helpers.values()) h.proc.kill();
  helpers.clear();
}
