/**
 * `npx tsx bench/profile-step.ts [rounds]`: where one loop step's time goes, from timestamps the
 * system already records — the scripted model's request times and the conversation's events:
 *
 *   model request ──A──▶ tool_execution_start ──B──▶ tool_execution_end ──C──▶ next model request
 *   A: the model's streamed answer, parsing it, advance + SQLite, until the dispatch is recorded
 *   B: dispatch RPC → hub → WebSocket → agent → spawn → result → hub → RPC → advance + SQLite
 *   C: building the next model request and sending it
 * Plus the agent's own spawn-to-exit time for the tool (elapsed_ms in the result). Not part of the
 * benchmark's report; a tool for deciding what to make faster.
 */
import { readdirSync, readFileSync } from "node:fs";
import { sendMessage } from "../test/helpers/api.js";
import { startBenchEnv } from "./lib/bench-env.js";
import { storedEvents } from "./lib/conversation-events.js";
import { requestTimes } from "./lib/llm-requests.js";
import { round, summarize } from "./lib/stats.js";

const rounds = Math.min(Number(process.argv[2] ?? 60), 100);
const env = await startBenchEnv(true);
try {
  env.llm.setRules([
    {
      match: "^bench profile",
      turns: [
        ...Array.from({ length: rounds }, () => ({ tool_calls: [{ name: "bench_ok", arguments: {} }] })),
        { content: "done" },
      ],
    },
  ]);
  const text = `bench profile ${Date.now()}`;
  const cpuBefore = cpuByProcess();
  const { body } = await sendMessage(env.worker.url, { agent_id: "bench-dev", text }, 60);
  const cpuAfter = cpuByProcess();
  if (body.status !== "completed") throw new Error(`profile run: ${body.status}`);
  const llm = requestTimes(env.llm, text);
  const events = await storedEvents(env.worker.url, body.conversation_id);
  const starts = events.filter((e) => e.type === "tool_execution_start").map((e) => e.at);
  const ends = events.filter((e) => e.type === "tool_execution_end").map((e) => e.at);
  const spawn = (body.tool_calls as { elapsed_ms?: number }[]).map((c) => c.elapsed_ms ?? NaN);
  const parts = { step: [] as number[], A: [] as number[], B: [] as number[], C: [] as number[] };
  // Skip the first rounds: warm-up (first spawn, first requests through a fresh runtime).
  for (let i = 5; i < rounds; i++) {
    parts.step.push(llm[i + 1]! - llm[i]!);
    parts.A.push(starts[i]! - llm[i]!);
    parts.B.push(ends[i]! - starts[i]!);
    parts.C.push(llm[i + 1]! - ends[i]!);
  }
  const row = (name: string, xs: number[]) => {
    const s = summarize(xs);
    return `${name.padEnd(44)} median ${String(round(s.median)).padStart(7)} ms   p99 ${String(round(s.p99)).padStart(7)} ms`;
  };
  console.log(`${rounds} rounds (first 5 skipped)`);
  console.log(row("step (model request → next model request)", parts.step));
  console.log(row("A  model answer → dispatch recorded", parts.A));
  console.log(row("B  dispatch → result applied", parts.B));
  console.log(row("   of which the agent's spawn of the tool", spawn.slice(5)));
  console.log(row("C  result applied → next model request", parts.C));
  console.log("CPU per round, by process (user+system, from /proc):");
  for (const [pid, after] of cpuAfter) {
    const used = after.ms - (cpuBefore.get(pid)?.ms ?? 0);
    if (used / rounds >= 0.2) console.log(`  ${(used / rounds).toFixed(2).padStart(7)} ms  ${pid} ${after.name}`);
  }
} finally {
  await env.stop();
}

/**
 * CPU time so far of every process this script started (its descendants), by pid, in clock ticks
 * of 10 ms. Only descendants: on a shared machine every other process is someone else's work.
 */
function cpuByProcess(): Map<number, { name: string; ms: number }> {
  const all = new Map<number, { ppid: number; name: string; ms: number }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8")
        .split("\0")
        .filter(Boolean)
        .slice(0, 5)
        .map((a) => a.split("/").pop())
        .join(" ");
      const ms = (Number(fields[11]) + Number(fields[12])) * 10;
      all.set(Number(entry), { ppid: Number(fields[1]), name: cmd.slice(0, 110), ms });
    } catch {
      // the process ended meanwhile
    }
  }
  const mine = (pid: number): boolean => {
    for (let p = all.get(pid)?.ppid; p !== undefined && p > 1; p = all.get(p)?.ppid) if (p === process.pid) return true;
    return false;
  };
  const out = new Map<number, { name: string; ms: number }>();
  for (const [pid, p] of all) if (mine(pid)) out.set(pid, { name: p.name, ms: p.ms });
  return out;
}
