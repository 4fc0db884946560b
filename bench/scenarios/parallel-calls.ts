import { join } from "node:path";
import { sendMessage } from "../../test/helpers/api.js";
import { BENCH_SKILLS, type BenchEnv } from "../lib/bench-env.js";
import { spawnParallel } from "../lib/direct-spawn.js";
import { answerTimes, requestTimes } from "../lib/llm-requests.js";
import { blockRatios, MIN_REPETITIONS, repeatedRatio } from "../lib/repeats.js";
import type { ScenarioResult } from "../lib/result.js";
import { round, roundSummary, summarize } from "../lib/stats.js";

const CALLS = 5;
const SLEEP_MS = 300;

/**
 * Scenario 2: one model response with 5 calls, each sleeping 300 ms on the device. Wall time of
 * the round = from the moment the model's answer asking for them is complete to the model request
 * that carries the five results: the part of the loop the orchestrator runs. (The model's own
 * time streaming its answer is reported beside it, from the request that asked for the calls.)
 * The floor: the same five 300 ms tools spawned at once from a lean process (spawn-floor.mjs),
 * until the last one is done; that is what five parallel calls cost the device on this machine
 * (five forks on two cores), measured alternately with the rounds.
 */
export async function parallelCalls(env: BenchEnv): Promise<ScenarioResult> {
  const reps = env.quick ? MIN_REPETITIONS : 4 * MIN_REPETITIONS;
  env.llm.setRules([
    {
      match: "^bench parallel",
      turns: [
        { tool_calls: Array.from({ length: CALLS }, () => ({ name: "bench_sleep", arguments: {} })) },
        { content: "done" },
      ],
    },
  ]);
  const walls: number[] = [];
  const withModel: number[] = [];
  const floor: number[] = [];
  const binary = join(BENCH_SKILLS, "bin/bench-sleep");
  await spawnParallel(binary, env.agent.workspace, CALLS);
  for (let i = 0; i < reps; i++) {
    const text = `bench parallel ${Date.now()} ${i}`;
    const { body } = await sendMessage(env.worker.url, { agent_id: "bench-dev", text }, 60);
    if (body.status !== "completed" || body.tool_calls.filter((c) => c.status === "success").length !== CALLS) {
      throw new Error(`parallel run: ${JSON.stringify(body).slice(0, 300)}`);
    }
    const [asked, next] = requestTimes(env.llm, text);
    const [answered] = answerTimes(env.llm, text);
    walls.push(next! - answered!);
    withModel.push(next! - asked!);
    floor.push(await spawnParallel(binary, env.agent.workspace, CALLS));
  }
  const w = summarize(walls);
  const m = summarize(withModel);
  const f = summarize(floor);
  return {
    id: "parallel_calls",
    title: "2. Parallel calls (5 calls in one response, each sleeping 300 ms on the device)",
    repetitions: w.n,
    metrics: [
      repeatedRatio(
        "round wall time (answer complete → next model request) / five bare parallel spawns (median of 3 blocks)",
        blockRatios(walls, [floor]),
        { op: "<=", value: 1.1 },
        "each block: rounds alternating with the floor's spawns, its median over the floor's",
      ),
      { name: "round wall time / five bare parallel spawns (p99)", value: round(w.p99 / f.p99), unit: "ratio" },
      { name: "round wall time / 300 ms (median)", value: round(w.median / SLEEP_MS), unit: "ratio" },
      { name: "round wall time median", value: round(w.median), unit: "ms" },
      { name: "five bare parallel spawns median", value: round(f.median), unit: "ms" },
      {
        name: "with the model's streaming of its answer: model request → next model request (median)",
        value: round(m.median),
        unit: "ms",
      },
    ],
    floor:
      "the same five 300 ms tools spawned at once from a lean Node process (bench/lib/spawn-floor.mjs), until the last one's pipes close, alternating with the rounds",
    details: {
      calls_per_round: CALLS,
      sleep_ms: SLEEP_MS,
      round_wall_ms: roundSummary(w),
      floor_parallel_spawns_ms: roundSummary(f),
      request_to_request_ms: roundSummary(m),
    },
  };
}
