import { performance } from "node:perf_hooks";
import { sendMessage } from "../../test/helpers/api.js";
import { type BenchEnv, deviceToken, FLEET_SIZE } from "../lib/bench-env.js";
import { type DurableFloorRun, durableFloorThroughput } from "../lib/durable-floor-client.js";
import { FakeDevice } from "../lib/fake-device.js";
import { echoPlusFetchThroughput, echoThroughput } from "../lib/floor-client.js";
import { gaps, requestBodies, requestTimes } from "../lib/llm-requests.js";
import { cpuDelta, groupCpuMs } from "../lib/process-cpu.js";
import { MIN_REPETITIONS, repeatedRatio } from "../lib/repeats.js";
import type { ScenarioResult } from "../lib/result.js";
import { round, roundSummary, summarize } from "../lib/stats.js";

const ROUNDS = 3;

/** One repetition: the fleet's conversations, then the floor's calls at the same concurrency. */
type Repetition = {
  wallMs: number;
  cpu: ReturnType<typeof cpuDelta>;
  succeeded: number;
  steps: number[];
  fair: Awaited<ReturnType<typeof echoPlusFetchThroughput>>;
  floorCpu: ReturnType<typeof cpuDelta>;
  durable: DurableFloorRun;
  durableCpu: ReturnType<typeof cpuDelta>;
};

/**
 * Scenario 3: many devices (simulated in this process, speaking the real protocol) and many
 * concurrent conversations of 3 tool rounds each. Judged against the durable floor
 * (docs/benchmarks.md#the-durable-floor): the same messages, devices and rounds through two
 * trivial objects that make only the commits, RPCs and hops the invariants need, with the same
 * model requests, on the same runtime, at the same concurrency. The relay floor (the step floor's
 * work, a WebSocket round trip in which a DO makes the model request, committing nothing) is
 * reported beside it, and raw echo throughput beside that.
 */
export async function fleetLoad(env: BenchEnv): Promise<ScenarioResult> {
  const devices = env.quick ? 5 : FLEET_SIZE;
  const conversations = env.quick ? 10 : 100;
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
  const runtime = env.worker.child.proc.pid!;
  const floorRuntime = env.floor.child.proc.pid!;
  const expected = conversations * ROUNDS;
  const reps: Repetition[] = [];
  const allTexts: string[] = [];
  let replies: Awaited<ReturnType<typeof sendMessage>>[] = [];
  try {
    // Ours and the floor's at the same concurrency, alternating, MIN_REPETITIONS times.
    for (let r = 0; r < MIN_REPETITIONS; r++) {
      const texts = Array.from({ length: conversations }, (_, i) => `bench fleet ${run} ${r} ${i}`);
      allTexts.push(...texts);
      const cpuBefore = groupCpuMs(runtime);
      const started = performance.now();
      const got = await Promise.all(
        texts.map((text, i) => sendMessage(env.worker.url, { agent_id: `fleet-${i % devices}`, text }, 60)),
      );
      const wallMs = performance.now() - started;
      const cpu = cpuDelta(cpuBefore, groupCpuMs(runtime));
      replies = replies.concat(got);
      const succeeded = got.reduce((n, x) => n + x.body.tool_calls.filter((c) => c.status === "success").length, 0);
      const steps = texts.flatMap((t) => gaps(requestTimes(env.llm, t)).slice(0, ROUNDS));

      const middle = requestBodies(env.llm, texts[0]!);
      const floorCpuBefore = groupCpuMs(floorRuntime);
      const fair = await echoPlusFetchThroughput(
        env.floor.wsUrl,
        devices,
        Math.ceil(conversations / devices),
        expected,
        `${env.llm.url}/chat/completions`,
        JSON.stringify(middle[Math.floor(middle.length / 2)]),
      );
      const floorCpu = cpuDelta(floorCpuBefore, groupCpuMs(floorRuntime));
      const durableCpuBefore = groupCpuMs(floorRuntime);
      const durable = await durableFloorThroughput(
        env.floor.url,
        devices,
        conversations,
        ROUNDS,
        `${env.llm.url}/chat/completions`,
        JSON.stringify(middle[Math.floor(middle.length / 2)]),
        `${run}-${r}`,
      );
      const durableCpu = cpuDelta(durableCpuBefore, groupCpuMs(floorRuntime));
      reps.push({ wallMs, cpu, succeeded, steps, fair, floorCpu, durable, durableCpu });
    }
  } finally {
    for (const d of fleet) d.close();
  }
  const succeeded = reps.reduce((n, x) => n + x.succeeded, 0);
  const incomplete = replies.filter((r) => r.body.status !== "completed").length;
  const perRequest = fleet.flatMap((d) => [...d.received.values()]);
  const duplicated = perRequest.reduce((n, c) => n + (c - 1), 0) + Math.max(0, succeeded - expected * reps.length);
  const lost = Math.max(0, expected * reps.length - succeeded);
  const s = summarize(reps.flatMap((x) => x.steps));
  const fr = summarize(reps.flatMap((x) => x.fair.roundTrips));
  const perSecond = (x: Repetition) => (x.succeeded / x.wallMs) * 1000;
  const cpuPerCall = (x: Repetition) => x.cpu.total! / x.succeeded;
  const floorCpuPerCall = (x: Repetition) => x.floorCpu.total! / x.fair.calls;
  const durableCpuPerCall = (x: Repetition) => x.durableCpu.total! / x.durable.calls;
  const workerdPerCall = (x: Repetition) => (x.cpu.workerd ?? 0) / x.succeeded;
  const durableWorkerdPerCall = (x: Repetition) => (x.durableCpu.workerd ?? 0) / x.durable.calls;
  const median = (f: (x: Repetition) => number) => summarize(reps.map(f)).median;
  const window = Math.ceil(conversations / devices);
  const echoCpuBefore = groupCpuMs(floorRuntime);
  const echo = await echoThroughput(env.floor.wsUrl, devices, window, env.quick ? 400 : 4000);
  const echoCpu = cpuDelta(echoCpuBefore, groupCpuMs(floorRuntime)).total! / echo.frames;
  // What the pieces of a durable round cost this runtime, at the same concurrency (bench/profile-units.ts).
  const unitCpu = async (frame: string) => {
    const before = groupCpuMs(floorRuntime);
    const r = await echoThroughput(env.floor.wsUrl, devices, window, env.quick ? 200 : 2000, frame);
    return cpuDelta(before, groupCpuMs(floorRuntime)).total! / r.frames - echoCpu;
  };
  const commitCpu = await unitCpu("write 1");
  const rpcCpu = (await unitCpu("rpc")) - commitCpu;
  return {
    id: "fleet_load",
    title: `3. Fleet load (${devices} device connections, ${conversations} concurrent conversations × ${ROUNDS} tool rounds)`,
    repetitions: reps.length,
    lost,
    duplicated,
    metrics: [
      repeatedRatio(
        "runtime CPU per tool call / the durable floor's per call (median of 3 repetitions)",
        reps.map((x) => cpuPerCall(x) / durableCpuPerCall(x)),
        { op: "<=", value: 2 },
        "each repetition: the fleet's conversations, then the relay floor's calls, then the durable floor's messages, at the same concurrency",
      ),
      repeatedRatio(
        "tool calls per second / the durable floor's (median of 3 repetitions)",
        reps.map((x) => perSecond(x) / x.durable.perSecond),
        { op: ">=", value: 0.5 },
        "the same messages, devices and rounds through the durable floor, at the same concurrency",
      ),
      {
        // Beside the judged ratio, which counts the dev server's whole process group: its Node
        // process is the local tooling's, not the runtime a deployment runs on (docs/benchmarks.md).
        name: "workerd CPU per tool call / the durable floor's workerd per call (median of 3 repetitions)",
        value: round(median((x) => workerdPerCall(x) / durableWorkerdPerCall(x))),
        unit: "ratio",
        repetitions: reps.map((x) => round(workerdPerCall(x) / durableWorkerdPerCall(x))),
        note: "the runtime's own process alone, without wrangler's Node process",
      },
      {
        name: "runtime CPU per tool call / the relay floor's per call (median of 3 repetitions)",
        value: round(median((x) => cpuPerCall(x) / floorCpuPerCall(x))),
        unit: "ratio",
        repetitions: reps.map((x) => round(cpuPerCall(x) / floorCpuPerCall(x))),
        note: "the relay floor: the step floor's work (WebSocket round trip + the model request from a DO, no commit) at the same concurrency; the target before the durable floor was ≤ 3×",
      },
      {
        name: "tool calls per second / relay floor calls per second (median of 3 repetitions)",
        value: round(median((x) => perSecond(x) / x.fair.perSecond)),
        unit: "ratio",
        repetitions: reps.map((x) => round(perSecond(x) / x.fair.perSecond)),
      },
      {
        name: "round trip / floor round trip (median of 3 repetitions)",
        value: round(median((x) => summarize(x.steps).median / summarize(x.fair.roundTrips).median)),
        unit: "ratio",
        repetitions: reps.map((x) => round(summarize(x.steps).median / summarize(x.fair.roundTrips).median)),
      },
      { name: "round trip median", value: round(s.median), unit: "ms", note: "no target: absolute times are noise" },
      { name: "relay floor round trip median", value: round(fr.median), unit: "ms" },
      { name: "tool calls per second (median)", value: round(median(perSecond)), unit: "per_s" },
      {
        name: "durable floor tool calls per second (median)",
        value: round(median((x) => x.durable.perSecond)),
        unit: "per_s",
      },
      { name: "relay floor calls per second (median)", value: round(median((x) => x.fair.perSecond)), unit: "per_s" },
      {
        name: "runtime CPU per tool call (median)",
        value: round(median(cpuPerCall)),
        unit: "ms",
        note: `the local runtime's processes (workerd ${round(median((x) => (x.cpu.workerd ?? 0) / x.succeeded))} ms); on one thread this bounds calls per second`,
      },
      {
        name: "durable floor runtime CPU per tool call (median)",
        value: round(median(durableCpuPerCall)),
        unit: "ms",
        note: "per tool round: 4 commits (the step before dispatch, the hub's ledger row, its outcome, the result), 2 RPCs, the command, result and ack frames, the model request; per message: the request into the conversation and the final model request",
      },
      { name: "relay floor runtime CPU per call (median)", value: round(median(floorCpuPerCall)), unit: "ms" },
      {
        name: "tool calls per second / raw echo frames per second",
        value: round(median(perSecond) / echo.perSecond, 4),
        unit: "ratio",
      },
      { name: "raw WebSocket echo frames per second", value: round(echo.perSecond), unit: "per_s" },
      {
        name: "runtime CPU of one SQLite commit (one row), beside an echo",
        value: round(commitCpu, 3),
        unit: "ms",
        note: `a durable device round commits at least 4 times (the conversation before dispatch and on the result, the hub's command and outcome): ${round((4 * commitCpu) / median(floorCpuPerCall))}× the relay floor's whole call`,
      },
      {
        name: "runtime CPU of one RPC to another object, beside its commit",
        value: round(rpcCpu, 3),
        unit: "ms",
      },
      { name: "round trip p99", value: round(s.p99), unit: "ms" },
      { name: "lost calls", value: lost, unit: "count", target: { op: "==", value: 0 } },
      { name: "duplicated calls", value: duplicated, unit: "count", target: { op: "==", value: 0 } },
    ],
    floor: `the durable floor: the same ${conversations} messages of ${ROUNDS} tool rounds on ${devices} devices (simulated in this process) through the same runtime, each message a conversation object that commits each round's step before dispatch, RPCs the device's hub object, which commits a ledger row and sends the command over the device's WebSocket; the device answers; the hub commits the outcome, hands it back by RPC and acks; the conversation commits the result and makes the next model request (a request body of this run to the scripted model). The relay floor beside it: the step floor's work per call at the same concurrency: ${devices} WebSockets through the same runtime, each to its own trivial DO, ${Math.ceil(conversations / devices)} calls in flight on each, ${expected} calls, each a round trip in which the DO POSTs a request body of this run to the scripted model and reads the answer. Raw echo throughput beside it: ${devices} WebSockets through the same runtime, each to its own trivial DO, ${Math.ceil(conversations / devices)} frames in flight on each (as many as conversations per device)`,
    details: {
      devices,
      conversations,
      rounds: ROUNDS,
      repetitions: reps.length,
      expected_calls: expected * reps.length,
      succeeded_calls: succeeded,
      incomplete_conversations: incomplete,
      wall_ms: reps.map((x) => round(x.wallMs)),
      round_trip_ms: roundSummary(s),
      runtime_cpu_ms: reps.map((x) => x.cpu),
      floor_runtime_cpu_ms: reps.map((x) => x.floorCpu),
      durable_floor_runtime_cpu_ms: reps.map((x) => x.durableCpu),
      durable_floor_calls: reps.map((x) => x.durable.calls),
      durable_floor_ms: reps.map((x) => round(x.durable.ms)),
      durable_floor_duplicated: reps.reduce((n, x) => n + x.durable.duplicated, 0),
      floor_calls: reps.map((x) => x.fair.calls),
      floor_ms: reps.map((x) => round(x.fair.ms)),
      floor_round_trip_ms: roundSummary(fr),
      echo_frames: echo.frames,
      echo_ms: round(echo.ms),
    },
  };
}
