import { join } from "node:path";
import { sendMessage } from "../../test/helpers/api.js";
import { BENCH_SKILLS, type BenchEnv } from "../lib/bench-env.js";
import { spawnDirect } from "../lib/direct-spawn.js";
import { echoPlusFetch, echoRoundTrips, FloorSocket } from "../lib/floor-client.js";
import { gaps, requestBodies, requestTimes } from "../lib/llm-requests.js";
import { MIN_REPETITIONS, repeatedRatio } from "../lib/repeats.js";
import type { ScenarioResult } from "../lib/result.js";
import { round, roundSummary, summarize } from "../lib/stats.js";

/**
 * Scenario 1: one conversation, sequential tool round trips with an instant model and an
 * instant tool. One step = the gap between two model requests of the same message. Its floor,
 * measured in the same run against the floor worker: one WebSocket round trip through the same
 * runtime to a trivial DO, in which the DO makes one HTTP request to the same scripted model with
 * the same request body (so the model's own streaming time is in the floor, not in our cost), plus
 * the tool's bare spawn (the device must run it).
 */
export async function stepOverhead(env: BenchEnv): Promise<ScenarioResult> {
  // Three runs, each of short blocks alternating with the floor's samples, so drift on a shared
  // machine (it can move a whole block by 20%) hits the step and its floor alike; the headline is
  // the median of the three runs' ratios.
  const runs = MIN_REPETITIONS;
  const roundsPerMessage = env.quick ? 10 : 25;
  const messagesPerRun = env.quick ? 1 : 3;
  const floorSamples = env.quick ? 12 : 25;
  env.llm.setRules([
    {
      match: "^bench step",
      turns: [
        ...Array.from({ length: roundsPerMessage }, () => ({ tool_calls: [{ name: "bench_ok", arguments: {} }] })),
        { content: "done" },
      ],
    },
  ]);
  const conversation_id = `bench-step-${Date.now()}`;
  const socket = await FloorSocket.open(env.floor.wsUrl, "step-floor");
  const perRun: { steps: number[]; floor: number[]; spawn: number[] }[] = [];
  const echo: number[] = [];
  try {
    for (let r = 0; r < runs; r++) {
      const run = { steps: [] as number[], floor: [] as number[], spawn: [] as number[] };
      perRun.push(run);
      for (let m = 0; m < messagesPerRun; m++) {
        const text = `bench step ${conversation_id} run ${r + 1} part ${m + 1}`;
        const { status, body } = await sendMessage(
          env.worker.url,
          { agent_id: "bench-dev", conversation_id, text },
          60,
        );
        if (status !== 200 || body.status !== "completed")
          throw new Error(`step run ended ${status} ${body.status}: ${JSON.stringify(body).slice(0, 300)}`);
        const ok = body.tool_calls.filter((c) => c.status === "success").length;
        if (ok !== roundsPerMessage) throw new Error(`expected ${roundsPerMessage} successful calls, got ${ok}`);
        // Requests 0..n-1 answered with a tool call; each gap is one full tool round trip.
        run.steps.push(...gaps(requestTimes(env.llm, text)).slice(0, roundsPerMessage));

        // The floor right after, with a request body from the middle of this very message.
        const bodies = requestBodies(env.llm, text);
        const body50 = JSON.stringify(bodies[Math.floor(bodies.length / 2)]);
        echo.push(...(await echoRoundTrips(socket, Math.ceil(floorSamples / 2))));
        for (let i = 0; i < floorSamples; i++)
          run.floor.push(await echoPlusFetch(socket, `${env.llm.url}/chat/completions`, body50));
        for (let i = 0; i < Math.ceil(floorSamples / 2); i++)
          run.spawn.push(await spawnDirect(join(BENCH_SKILLS, "bin/bench-ok"), env.agent.workspace));
      }
    }
  } finally {
    socket.close();
  }
  const runRatios = perRun.map((x) => {
    const s = summarize(x.steps).median;
    return {
      vsFloorAndSpawn: s / (summarize(x.floor).median + summarize(x.spawn).median),
      vsFloor: s / summarize(x.floor).median,
    };
  });
  const s = summarize(perRun.flatMap((x) => x.steps));
  const f = summarize(perRun.flatMap((x) => x.floor));
  const sp = summarize(perRun.flatMap((x) => x.spawn));
  return {
    id: "step_overhead",
    title: "1. Step overhead (sequential tool round trips, one conversation)",
    repetitions: Math.min(s.n, f.n),
    metrics: [
      repeatedRatio(
        "step / (floor + bare spawn of the tool) (median of 3 runs)",
        runRatios.map((x) => x.vsFloorAndSpawn),
        { op: "<=", value: 1.25 },
      ),
      {
        name: "step / floor (median of 3 runs)",
        value: round(summarize(runRatios.map((x) => x.vsFloor)).median),
        unit: "ratio",
        note: "without the tool's spawn, which the device must do",
      },
      { name: "step / (floor + spawn) (p99, all runs)", value: round(s.p99 / (f.p99 + sp.p99)), unit: "ratio" },
      { name: "step median", value: round(s.median), unit: "ms" },
      { name: "step p99", value: round(s.p99), unit: "ms" },
      { name: "floor median", value: round(f.median), unit: "ms" },
      { name: "bare spawn of the tool median", value: round(sp.median), unit: "ms" },
    ],
    floor:
      "one WebSocket round trip from Node through the same local runtime (wrangler's dev server, DevTools inspector off for both) to a trivial Durable Object, during which that DO POSTs the same chat request body (taken from the middle of the message just measured) to the same scripted model and reads the whole streamed answer; plus the tool's own spawn from a lean Node process (bench/lib/spawn-floor.mjs), which the device must do. Three runs alternate the step's messages with these samples; the headline is the median of the runs' ratios",
    details: {
      runs,
      rounds: s.n,
      messages_per_run: messagesPerRun,
      run_ratios: runRatios.map((x) => ({ vs_floor_and_spawn: round(x.vsFloorAndSpawn), vs_floor: round(x.vsFloor) })),
      step_ms: roundSummary(s),
      floor_ws_echo_plus_fetch_ms: roundSummary(f),
      floor_ws_echo_only_ms: roundSummary(summarize(echo)),
      direct_spawn_ms: roundSummary(sp),
      timer_resolution: "sub-ms (the model server's performance clock; the floor client's)",
    },
  };
}
