import { join } from "node:path";
import { sendMessage } from "../../test/helpers/api.js";
import { BENCH_SKILLS, type BenchEnv } from "../lib/bench-env.js";
import { spawnDirect } from "../lib/direct-spawn.js";
import { echoPlusFetch, echoRoundTrips, FloorSocket } from "../lib/floor-client.js";
import { gaps, requestBodies, requestTimes } from "../lib/llm-requests.js";
import type { ScenarioResult } from "../lib/result.js";
import { round, roundSummary, summarize } from "../lib/stats.js";

/**
 * Scenario 1: one conversation, sequential tool round trips with an instant model and an
 * instant tool. One step = the gap between two model requests of the same message. Its floor,
 * measured in the same run against the floor worker: one WebSocket round trip through the same
 * runtime to a trivial DO, in which the DO makes one HTTP request to the same scripted model with
 * the same request body (so the model's own streaming time is in the floor, not in our cost).
 */
export async function stepOverhead(env: BenchEnv): Promise<ScenarioResult> {
  // Short blocks, alternating with the floor's samples, so drift on a shared machine (it can move
  // a whole block by 20%) hits the step and its floor alike.
  const roundsPerMessage = env.quick ? 20 : 25;
  const messages = env.quick ? 1 : 8;
  const floorSamples = env.quick ? 30 : 25;
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
  const steps: number[] = [];
  const floor: number[] = [];
  const echo: number[] = [];
  const spawn: number[] = [];
  try {
    for (let m = 0; m < messages; m++) {
      const text = `bench step ${conversation_id} part ${m + 1}`;
      const { status, body } = await sendMessage(env.worker.url, { agent_id: "bench-dev", conversation_id, text }, 60);
      if (status !== 200 || body.status !== "completed")
        throw new Error(`step run ended ${status} ${body.status}: ${JSON.stringify(body).slice(0, 300)}`);
      const ok = body.tool_calls.filter((c) => c.status === "success").length;
      if (ok !== roundsPerMessage) throw new Error(`expected ${roundsPerMessage} successful calls, got ${ok}`);
      const times = requestTimes(env.llm, text);
      // Requests 0..n-1 answered with a tool call; each gap is one full tool round trip.
      steps.push(...gaps(times).slice(0, roundsPerMessage));

      // The floor right after, with a request body from the middle of this very run.
      const bodies = requestBodies(env.llm, text);
      const body50 = JSON.stringify(bodies[Math.floor(bodies.length / 2)]);
      echo.push(...(await echoRoundTrips(socket, floorSamples)));
      for (let i = 0; i < floorSamples; i++)
        floor.push(await echoPlusFetch(socket, `${env.llm.url}/chat/completions`, body50));
      for (let i = 0; i < Math.ceil(floorSamples / 2); i++)
        spawn.push(await spawnDirect(join(BENCH_SKILLS, "bin/bench-ok"), env.agent.workspace));
    }
  } finally {
    socket.close();
  }
  const s = summarize(steps);
  const f = summarize(floor);
  const sp = summarize(spawn);
  return {
    id: "step_overhead",
    title: "1. Step overhead (sequential tool round trips, one conversation)",
    repetitions: Math.min(s.n, f.n),
    metrics: [
      {
        name: "step / floor (median)",
        value: round(s.median / f.median),
        unit: "ratio",
        target: { op: "<=", value: 1.5 },
      },
      { name: "step / floor (p99)", value: round(s.p99 / f.p99), unit: "ratio" },
      {
        name: "step / (floor + direct spawn of the tool) (median)",
        value: round(s.median / (f.median + sp.median)),
        unit: "ratio",
        note: "the device must spawn the tool; the stated floor does not include that",
      },
      { name: "step median", value: round(s.median), unit: "ms" },
      { name: "step p99", value: round(s.p99), unit: "ms" },
      { name: "floor median", value: round(f.median), unit: "ms" },
    ],
    floor:
      "one WebSocket round trip from Node through the same local runtime (wrangler's dev server, DevTools inspector off for both) to a trivial Durable Object, during which that DO POSTs the same chat request body (taken from the middle of this run) to the same scripted model and reads the whole streamed answer",
    details: {
      rounds: steps.length,
      messages,
      step_ms: roundSummary(s),
      floor_ws_echo_plus_fetch_ms: roundSummary(f),
      floor_ws_echo_only_ms: roundSummary(summarize(echo)),
      direct_spawn_ms: roundSummary(sp),
      timer_resolution: "sub-ms (the model server's performance clock; the floor client's)",
    },
  };
}
