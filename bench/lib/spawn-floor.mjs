// Plain JavaScript with no imports beyond Node's own, run as its own process: the floor of a tool
// spawn is a spawn from a lean process. (Forking copies the parent's page tables, so the same
// spawn from the benchmark's own process, with its loaders and servers, costs more and would
// flatter the agent.)
//
// Protocol: one JSON line per request on stdin, {"id", "binary", "cwd", "stdin", "n"?}; one JSON line
// per answer on stdout, {"id", "ms"} or {"id", "error"}. With `n`, that many spawns start at once and
// `ms` is until the last one's pipes close (the floor of parallel calls).
//
// `node spawn-floor.mjs [ballast-MB]`: with a ballast, the process first grows its anonymous memory
// by that many MB, so its forks cost what a process of the agent's size pays (see
// device-execution.ts): that separates the fork's price from the agent's own work. The ballast is
// small JavaScript objects, as the agent's extra memory is (mostly V8 heap pages: anonymous mappings,
// not the malloc heap). On these VMs a MB of Buffers costs a fork ~5x more than a MB of JavaScript
// heap, so a Buffer ballast would overcharge the agent's size.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";

const anonMb = () => Number(/RssAnon:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) / 1024;
const ballast = [];
const target = anonMb() + Math.max(0, Number(process.argv[2] ?? 0));
while (anonMb() < target) ballast.push(Array.from({ length: 10_000 }, (_, i) => ({ i, s: `ballast ${i}` })));

function runOnce(binary, cwd, stdin) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [], { cwd, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    child.stdout.on("data", () => undefined);
    child.stderr.on("data", () => undefined);
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`${binary} exited ${code}`)),
    );
    // A tool that never reads its parameters closes stdin early: EPIPE is expected.
    child.stdin.on("error", () => undefined);
    child.stdin.end(stdin);
  });
}

for await (const line of createInterface({ input: process.stdin })) {
  const { id, binary, cwd, stdin, n = 1 } = JSON.parse(line);
  try {
    const started = performance.now();
    await Promise.all(Array.from({ length: n }, () => runOnce(binary, cwd, stdin)));
    process.stdout.write(`${JSON.stringify({ id, ms: performance.now() - started })}\n`);
  } catch (e) {
    process.stdout.write(`${JSON.stringify({ id, error: String(e) })}\n`);
  }
}
