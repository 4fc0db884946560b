/**
 * `npm run bench [-- --quick] [-- --out DIR] [-- --only id,id] [-- --inspector] [-- --help]`: every scenario
 * against the floor of the same machine, in one run; writes DIR/latest.json and DIR/latest.md (DIR
 * defaults to bench/results, or bench/results/quick for --quick so a quick run never replaces the
 * full one). `--inspector` runs both workers under `wrangler dev` itself, DevTools inspector and all.
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { REPO_ROOT, stopAll } from "../test/helpers/processes.js";
import { type BenchEnv, startBenchEnv } from "./lib/bench-env.js";
import { parseBenchFlags } from "./lib/bench-flags.js";
import { flagsOrExit } from "./lib/flags.js";
import { type BenchReport, machine, writeReport } from "./lib/report.js";
import type { ScenarioResult } from "./lib/result.js";
import { conversationMemory } from "./scenarios/conversation-memory.js";
import { costChatMessage } from "./scenarios/cost-chat-message.js";
import { costPerRound } from "./scenarios/cost-per-round.js";
import { deviceExecution } from "./scenarios/device-execution.js";
import { deviceFootprint } from "./scenarios/device-footprint.js";
import { fleetLoad } from "./scenarios/fleet-load.js";
import { largeResults } from "./scenarios/large-results.js";
import { longConversation } from "./scenarios/long-conversation.js";
import { parallelCalls } from "./scenarios/parallel-calls.js";
import { peerAgentsSdk } from "./scenarios/peer-agents-sdk.js";
import { resume } from "./scenarios/resume.js";
import { stepOverhead } from "./scenarios/step-overhead.js";

type Scenario = {
  id: string;
  run: (env: BenchEnv) => Promise<ScenarioResult>;
  limitMs: { quick: number; full: number };
};

// The peer scenario and resume kill and restart the runtime the others share: they run last.
const SCENARIOS: Scenario[] = [
  { id: "step_overhead", run: stepOverhead, limitMs: { quick: 30_000, full: 180_000 } },
  { id: "parallel_calls", run: parallelCalls, limitMs: { quick: 20_000, full: 60_000 } },
  { id: "large_results", run: largeResults, limitMs: { quick: 30_000, full: 90_000 } },
  { id: "fleet_load", run: fleetLoad, limitMs: { quick: 90_000, full: 480_000 } },
  { id: "device_execution", run: deviceExecution, limitMs: { quick: 30_000, full: 120_000 } },
  { id: "device_footprint", run: deviceFootprint, limitMs: { quick: 30_000, full: 90_000 } },
  { id: "peer_agents_sdk", run: peerAgentsSdk, limitMs: { quick: 90_000, full: 240_000 } },
  { id: "cost_per_round", run: costPerRound, limitMs: { quick: 90_000, full: 150_000 } },
  { id: "cost_chat_message", run: costChatMessage, limitMs: { quick: 90_000, full: 90_000 } },
  // Its own worker and model: a small context window the others must not have.
  { id: "long_conversation", run: longConversation, limitMs: { quick: 60_000, full: 600_000 } },
  // Its own worker under `wrangler dev`: the heap is read over its DevTools inspector.
  { id: "conversation_memory", run: conversationMemory, limitMs: { quick: 90_000, full: 1_200_000 } },
  { id: "resume", run: resume, limitMs: { quick: 60_000, full: 150_000 } },
];

function withLimit<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

async function main(): Promise<number> {
  const { quick, out, only, inspector } = flagsOrExit(
    parseBenchFlags(
      process.argv.slice(2),
      SCENARIOS.map((s) => s.id),
    ),
    "bench",
  );
  const outDir = out ?? join(REPO_ROOT, quick ? "bench/results/quick" : "bench/results");
  const started = performance.now();
  const flags = [quick ? "--quick" : "", inspector ? "--inspector" : ""].filter(Boolean).join(" ");
  const runtime = inspector
    ? "`wrangler dev` (its DevTools inspector attached, relaying every network event to the wrangler process)"
    : "wrangler's dev server (`unstable_startWorker`: the same bundling, Miniflare and workerd as `wrangler dev`) without the DevTools inspector";
  const report: BenchReport = {
    date: new Date().toISOString(),
    quick,
    command: `npm run bench${flags ? ` -- ${flags}` : ""}`,
    runtime,
    duration_s: 0,
    machine: machine(),
    scenarios: [],
    failed: [],
  };
  const env = await startBenchEnv(quick, { inspector });
  // A signal ends the scenario under way too: its workers and agents are children of this process.
  const stop = () => void Promise.allSettled([env.stop(), stopAll()]).finally(() => process.exit(130));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    for (const s of SCENARIOS.filter((x) => !only || only.includes(x.id))) {
      const t0 = performance.now();
      process.stderr.write(`bench: ${s.id}${quick ? " (quick)" : ""}… `);
      try {
        report.scenarios.push(await withLimit(s.run(env), quick ? s.limitMs.quick : s.limitMs.full, s.id));
        process.stderr.write(`${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
      } catch (e) {
        report.failed.push({ id: s.id, error: (e as Error).stack ?? String(e) });
        process.stderr.write(`FAILED: ${(e as Error).message}\n`);
      }
    }
  } finally {
    await env.stop();
    // What a scenario cut off by its time limit left running.
    await stopAll();
  }
  report.duration_s = Math.round((performance.now() - started) / 1000);
  writeReport(outDir, report);
  process.stderr.write(`bench: wrote ${join(outDir, "latest.json")} and latest.md in ${report.duration_s} s\n`);
  const bad = report.scenarios.some((s) => (s.lost ?? 0) > 0 || (s.duplicated ?? 0) > 0);
  return report.failed.length > 0 || bad ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
