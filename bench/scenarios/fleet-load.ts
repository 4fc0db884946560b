import { performance } from "node:perf_hooks";
import { sendMessage } from "../../test/helpers/api.js";
import { type BenchEnv, deviceToken, FLEET_SIZE } from "../lib/bench-env.js";
import { FakeDevice } from "../lib/fake-device.js";
import { echoThroughput } from "../lib/floor-client.js";
import { gaps, requestTimes } from "../lib/llm-requests.js";
import type { ScenarioResult } from "../lib/result.js";
import { round, roundSummary, summarize } from "../lib/stats.js";

const ROUNDS = 3;

/**
 * Scenario 3: many devices (simulated in this process, speaking the real protocol) and many
 * concurrent conversations of 3 tool rounds each. Throughput is compared with raw WebSocket echo
 * throughput through the same runtime, same number of sockets, same number of frames in flight.
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
  const started = performance.now();
  try {
    replies = await Promise.all(
      texts.map((text, i) => sendMessage(env.worker.url, { agent_id: `fleet-${i % devices}`, text }, 60)),
    );
  } finally {
    for (const d of fleet) d.close();
  }
  const wallMs = performance.now() - started;

  const expected = conversations * ROUNDS;
  const succeeded = replies.reduce((n, r) => n + r.body.tool_calls.filter((c) => c.status === "success").length, 0);
  const incomplete = replies.filter((r) => r.body.status !== "completed").length;
  const perRequest = fleet.flatMap((d) => [...d.received.values()]);
  const duplicated = perRequest.reduce((n, c) => n + (c - 1), 0) + Math.max(0, succeeded - expected);
  const lost = Math.max(0, expected - succeeded);
  const steps = texts.flatMap((t) => gaps(requestTimes(env.llm, t)).slice(0, ROUNDS));
  const s = summarize(steps);
  const perSecond = (succeeded / wallMs) * 1000;

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
        name: "tool calls per second / raw echo frames per second",
        value: round(perSecond / echo.perSecond, 4),
        unit: "ratio",
      },
      { name: "tool calls per second", value: round(perSecond), unit: "per_s" },
      { name: "raw WebSocket echo frames per second", value: round(echo.perSecond), unit: "per_s" },
      { name: "round trip median", value: round(s.median), unit: "ms" },
      { name: "round trip p99", value: round(s.p99), unit: "ms" },
      { name: "lost calls", value: lost, unit: "count", target: { op: "==", value: 0 } },
      { name: "duplicated calls", value: duplicated, unit: "count", target: { op: "==", value: 0 } },
    ],
    floor: `raw echo throughput: ${devices} WebSockets through the same runtime, each to its own trivial DO, ${Math.ceil(conversations / devices)} frames in flight on each (as many as conversations per device)`,
    details: {
      devices,
      conversations,
      rounds: ROUNDS,
      expected_calls: expected,
      succeeded_calls: succeeded,
      incomplete_conversations: incomplete,
      wall_ms: round(wallMs),
      round_trip_ms: roundSummary(s),
      echo_frames: echo.frames,
      echo_ms: round(echo.ms),
    },
  };
}
