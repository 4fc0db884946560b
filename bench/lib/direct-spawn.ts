import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const Answer = z.object({ id: z.number(), ms: z.number().optional(), error: z.string().optional() });

/**
 * The device-side floor of a tool call: `binary` run the way the agent runs it, minus the agent
 * (own process group, stdin = the parameters as JSON, stdout and stderr collected, done when its
 * pipes close), timed inside a lean helper process (spawn-floor.mjs) so the spawn is not charged
 * for this process's size. One helper serves the whole run; requests are sequential.
 */
let helper: { proc: ChildProcessWithoutNullStreams; waiting: Map<number, (a: z.infer<typeof Answer>) => void> } | null = null;
let nextId = 1;

function startHelper() {
  const proc = spawn(process.execPath, [fileURLToPath(new URL("./spawn-floor.mjs", import.meta.url))], { stdio: ["pipe", "pipe", "pipe"] });
  const waiting = new Map<number, (a: z.infer<typeof Answer>) => void>();
  createInterface({ input: proc.stdout }).on("line", (line) => {
    const answer = Answer.parse(JSON.parse(line));
    waiting.get(answer.id)?.(answer);
    waiting.delete(answer.id);
  });
  proc.once("exit", () => {
    for (const resolve of waiting.values()) resolve({ id: 0, error: "spawn-floor helper exited" });
    if (helper?.proc === proc) helper = null;
  });
  return { proc, waiting };
}

export function spawnDirect(binary: string, cwd: string, stdin = "{}"): Promise<number> {
  helper ??= startHelper();
  const { proc, waiting } = helper;
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, (a) => (a.ms !== undefined ? resolve(a.ms) : reject(new Error(a.error ?? "no answer"))));
    proc.stdin.write(`${JSON.stringify({ id, binary, cwd, stdin })}\n`);
  });
}

/** Stop the helper (end of a run). */
export function stopDirectSpawn(): void {
  helper?.proc.kill();
  helper = null;
}
