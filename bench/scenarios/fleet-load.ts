import { performance } from "node:perf_hooks";
import { sendMessage } from "../../test/helpers/api.js";
import { type BenchEnv, deviceToken, FLEET_SIZE } from "../lib/bench-env.js";
import { FakeDevice } from "../lib/fake-device.js";
import { echoPlusFetchThroughput, echoThroughput } from "../lib/floor-client.js";
import { gaps, requestBodies, requestTimes } from "../lib/llm-requests.js";
import { cpuDelta, groupCpuMs } from "../lib/process-cpu.js";
import type { ScenarioResult } from "../lib/result.js";
import { round, roundSummary, summarize } from "../lib/stats.js";

const ROUNDS = 3;

/**
 * Scenario 3: many devices (simulated in this process, speaking the real protocol) and many
 * concurrent conversations of 3 tool rounds each. The floor does the same work per call without
 * the orchestrator: the step floor (a WebSocket round trip in which a DO makes the model request,
 * with a request body of this run) through the same runtime, same number of sockets, same number
 * of calls in flight, same number of calls. Raw echo throughput is reported beside it.
 */
export async function fleetLoad(env: BenchEnv): Promise<ScenarioResult> {
  const devices = env.quick ? 5 : FLEET_SIZE;
  const conversations = env.quick ? 20 : 100;
  env.llm.setRules([
    {
      match: "^bench fleet",
      turns: [
        ...Array.from({ length: ROUNDS }, () => ({ tool_calls: [{ name: "bench_ok", arguments: {} }] })),
        { content: "done" },
      ],
    },
  ]);
  const fleet = await Promise.all(
    Array.from({ length: devices }, (_, i) =>
      FakeDevice.connect(env.worker.url, `fleet-${i}`, deviceToken(`fleet-${i}`)),
    ),
  );
  const run = Date.now();
  const texts = Array.from({ length: conversations }, (_, i) => `bench fleet ${run} ${i}`);
  let replies: Awaited<ReturnType<typeof sendMessage>>[];
  const runtime = env.worker.child.proc.pid!;
  const cpuBefore = groupCpuMs(runtime);
  const started = performance.now();
  try {
    replies = await Promise.all(
      texts.map((text, i) => sendMessage(env.worker.url, { agent_id: `fleet-${i % devices}`, text }, 60)),
    );
  } finally {
    for (const d of fleet) d.close();
  }
  const wallMs = performance.now() - started;
  const cpu = cpuDelta(cpuBefore, groupCpuMs(runtime));

  const expected = conversations * ROUNDS;
  const succeeded = replies.reduce((n, r) => n + r.body.tool_calls.filter((c) => c.status === "success").length, 0);
  const incomplete = replies.filter((r) => r.body.status !== "completed").length;
  const perRequest = fleet.flatMap((d) => [...d.received.values()]);
  const duplicated = perRequest.reduce((n, c) => n + (c - 1), 0) + Math.max(0, succeeded - expected);
  const lost = Math.max(0, expected - succeeded);
  const steps = texts.flatMap((t) => gaps(requestTimes(env.llm, t)).slice(0, ROUNDS));
  const s = summarize(steps);
  const perSecond = (succeeded / wallMs) * 1000;

  const middle = requestBodies(env.llm, texts[0]!);
  const floorCpuBefore = groupCpuMs(env.floor.child.proc.pid!);
  const fair = await echoPlusFetchThroughput(
    env.floor.wsUrl,
    devices,
    Math.ceil(conversations / devices),
    expected,
    `${env.llm.url}/chat/completions`,
    JSON.stringify(middle[Math.floor(middle.length / 2)]),
  );
  const floorRuntime = env.floor.child.proc.pid!;
  const floorCpu = cpuDelta(floorCpuBefore, groupCpuMs(floorRuntime));
  const fr = summarize(fair.roundTrips);
  const echo = await echoThroughput(
    env.floor.wsUrl,
    devices,
    Math.ceil(conversations / devices),
    env.quick ? 400 : 4000,
  );
  return {
    id: "fleet_load",
    title: `3. Fleet load (${devices} device connections, ${conversations} concurrent conversations × ${ROUNDS} tool rounds)`,
    repetitions: s.n,
    lost,
    duplicated,
    metrics: [
      {
        name: "tool calls per second / floor calls per second",
        value: round(perSecond / fair.perSecond),
        unit: "ratio",
        note: "the floor: the step floor's work (WebSocket round trip + the model request from a DO) at the same concurrency",
      },
      {
        name: "round trip median",
        value: round(s.median),
        unit: "ms",
        target: { op: "<=", value: 300 },
        note: "the target halves the 600 ms measured when this target was set",
      },
      { name: "floor round trip median", value: round(fr.median), unit: "ms" },
      { name: "tool calls per second", value: round(perSecond), unit: "per_s" },
      { name: "floor calls per second", value: round(fair.perSecond), unit: "per_s" },
      {
        name: "runtime CPU per tool call",
        value: round(cpu.total! / succeeded),
        unit: "ms",
        note: `the local runtime's processes (workerd ${round((cpu.workerd ?? 0) / succeeded)} ms); on one thread this bounds calls per second`,
      },
      { name: "floor runtime CPU per call", value: round(floorCpu.total! / fair.calls), unit: "ms" },
      {
        name: "tool calls per second / raw echo frames per second",
        value: round(perSecond / echo.perSecond, 4),
        unit: "ratio",
      },
      { name: "raw WebSocket echo frames per second", value: round(echo.perSecond), unit: "per_s" },
      { name: "round trip p99", value: round(s.p99), unit: "ms" },
      { name: "lost calls", value: lost, unit: "count", target: { op: "==", value: 0 } },
      { name: "duplicated calls", value: duplicated, unit: "count", target: { op: "==", value: 0 } },
    ],
    floor: `the step floor's work per call at the same concurrency: ${devices} WebSockets through the same runtime, each to its own trivial DO, ${Math.ceil(conversations / devices)} calls in flight on each, ${expected} calls, each a round trip in which the DO POSTs a request body of this run to the scripted model and reads the answer. Raw echo throughput beside it: ${devices} WebSockets through the same runtime, each to its own trivial DO, ${Math.ceil(conversations / devices)} frames in flight on each (as many as conversations per device)`,
    details: {
      devices,
      conversations,
      rounds: ROUNDS,
      expected_calls: expected,
      succeeded_calls: succeeded,
      incomplete_conversations: incomplete,
      wall_ms: round(wallMs),
      round_trip_ms: roundSummary(s),
      runtime_cpu_ms: cpu,
      floor_runtime_cpu_ms: floorCpu,
      floor_calls: fair.calls,
      floor_ms: round(fair.ms),
      floor_round_trip_ms: roundSummary(fr),
      echo_frames: echo.frames,
      echo_ms: round(echo.ms),
    },
  };
}
