import { getConversation, sendMessage } from "../../test/helpers/api.js";
import type { LocalWorker } from "../../test/helpers/local-worker.js";
import { waitUntil } from "../../test/helpers/wait.js";
import type { BenchEnv } from "../lib/bench-env.js";
import type { HookArrival } from "../lib/hook-server.js";
import { gaps, requestTimes } from "../lib/llm-requests.js";
import { peerChat, peerMessages, startPeerWorker } from "../lib/peer-worker.js";
import { cpuDelta, groupCpuMs } from "../lib/process-cpu.js";
import { blockRatios, MIN_REPETITIONS, repeatedRatio } from "../lib/repeats.js";
import type { ScenarioResult } from "../lib/result.js";
import { round, roundSummary, summarize } from "../lib/stats.js";

/**
 * Scenario 7: side by side with the Cloudflare Agents SDK. The same scripted conversation (same
 * model server, same streamed answers, one tool call per round) through an `AIChatAgent` with a
 * server-side `echo` tool (bench/peer-agents-sdk) and through edgeloop with its built-in `echo`,
 * both tools inside the Durable Object, both workers on the same local runtime, messages
 * alternating. A round = the gap between two model requests of one message, as in scenario 1.
 *
 * Survival: a tool that calls a slow hook outside (edgeloop's webhook tool, the peer's tool with
 * the same body). The runtime is killed (kill -9) while the hook waits, or (full runs) while the
 * model is still answering with the call, and started again on the same state. Reported for each:
 * whether the conversation completes, and how often the hook was called for that one tool call
 * (and with how many distinct idempotency keys / call ids).
 */
export async function peerAgentsSdk(env: BenchEnv): Promise<ScenarioResult> {
  const rounds = env.quick ? 4 : 20;
  // Repetitions are consecutive thirds of the blocks, each alternating ours with theirs.
  const blocks = env.quick ? MIN_REPETITIONS : 2 * MIN_REPETITIONS;
  const survivalReps = env.quick ? 1 : 2;
  const phases: Phase[] = env.quick ? ["tool"] : ["tool", "model"];
  env.llm.setRules([
    {
      match: "^bench peer echo",
      turns: [
        ...Array.from({ length: rounds }, () => ({ tool_calls: [{ name: "echo", arguments: { text: "hi" } }] })),
        { content: "done" },
      ],
    },
    {
      match: "^bench peer kill-tool ",
      turns: [{ tool_calls: [{ name: "slow_hook", arguments: {} }] }, { content: "survived" }],
    },
    {
      match: "^bench peer kill-model ",
      turns: [{ delay_ms: 1500, tool_calls: [{ name: "slow_hook", arguments: {} }] }, { content: "survived" }],
    },
  ]);
  let peer = await startPeerWorker({ llmUrl: env.llm.url, hookUrl: env.hook.url, inspector: env.inspector });
  const ours: number[] = [];
  const theirs: number[] = [];
  /** CPU of each runtime's processes during its own messages (both workers idle otherwise) */
  const cpu = { ours: 0, theirs: 0 };
  const cpuOf = async (pgid: number, work: () => Promise<void>) => {
    const before = groupCpuMs(pgid);
    await work();
    return cpuDelta(before, groupCpuMs(pgid)).total!;
  };
  const survival = { edgeloop: [] as Survival[], sdk: [] as Survival[] };
  const run = Date.now();
  try {
    // One unmeasured message each: the first request of a fresh isolate is not a round's cost.
    await edgeloopMessage(env, `bench peer echo warm ${run}`, rounds);
    await peerChat(peer.url, `warm-${run}`, `bench peer echo warm ${run}`);
    for (let b = 0; b < blocks; b++) {
      const mine = `bench peer echo ${run} ${b}`;
      cpu.ours += await cpuOf(env.worker.child.proc.pid!, () => edgeloopMessage(env, mine, rounds));
      ours.push(...gaps(requestTimes(env.llm, mine)).slice(0, rounds));
      const sdk = `bench peer echo ${run} ${b} sdk`;
      cpu.theirs += await cpuOf(peer.child.proc.pid!, () => peerChat(peer.url, `lat-${run}-${b}`, sdk));
      theirs.push(...gaps(requestTimes(env.llm, sdk)).slice(0, rounds));
    }
    for (let r = 0; r < survivalReps; r++) {
      for (const phase of phases) {
        survival.edgeloop.push(await survivalEdgeloop(env, phase, `bench peer kill-${phase} ${run} ${r}`));
        const text = `bench peer kill-${phase} ${run} ${r} sdk`;
        const out = await survivalPeer(env, peer, phase, text, `survive-${phase}-${run}-${r}`);
        peer = out.peer;
        survival.sdk.push(out.result);
      }
    }
  } finally {
    await peer.stop();
  }
  const o = summarize(ours);
  const t = summarize(theirs);
  const all = (xs: Survival[], f: (s: Survival) => boolean) => xs.every(f);
  const inTool = (xs: Survival[]) => xs.filter((s) => s.phase === "tool");
  const maxRuns = (xs: Survival[]) => Math.max(...inTool(xs).map((s) => s.hook_calls));
  const maxDistinct = (xs: Survival[]) => Math.max(...inTool(xs).map((s) => s.distinct_calls));
  const modelPhase = (xs: Survival[]) => xs.filter((s) => s.phase === "model").map((s) => s.hook_calls);
  const kills = survivalReps * phases.length;
  return {
    id: "peer_agents_sdk",
    title: "7. Side by side with the Cloudflare Agents SDK (AIChatAgent, same model, tools in the Durable Object)",
    repetitions: Math.min(o.n, t.n),
    metrics: [
      repeatedRatio("round latency, edgeloop / Agents SDK (median of 3 repetitions)", blockRatios(ours, [theirs]), {
        op: "<=",
        value: 1.0,
      }),
      { name: "round latency, edgeloop / Agents SDK (p99)", value: round(o.p99 / t.p99), unit: "ratio" },
      {
        name: "runtime CPU per round, edgeloop / Agents SDK",
        value: round(cpu.ours / cpu.theirs),
        unit: "ratio",
        note: `${round(cpu.ours / (rounds * blocks))} vs ${round(cpu.theirs / (rounds * blocks))} ms: each runtime's processes during its own messages, per round (a message's first request included)`,
      },
      { name: "edgeloop round median", value: round(o.median), unit: "ms" },
      { name: "Agents SDK round median", value: round(t.median), unit: "ms" },
      {
        name: "edgeloop: conversations completed after a kill mid-round",
        value: survival.edgeloop.filter((s) => s.completed).length,
        unit: "count",
        target: { op: "==", value: kills },
        note: `kills during: ${phases.join(", ")}`,
      },
      {
        name: "edgeloop: hook calls for the interrupted tool call (max)",
        value: maxRuns(survival.edgeloop),
        unit: "count",
        note: "a re-driven webhook call after the restart carries the same Idempotency-Key",
      },
      {
        name: "edgeloop: distinct idempotency keys among those hook calls (max)",
        value: maxDistinct(survival.edgeloop),
        unit: "count",
        target: { op: "==", value: 1 },
        note: "1: a receiver that honours the key runs the tool once",
      },
      ...(phases.includes("model")
        ? [
            {
              name: "edgeloop: hook calls when killed while the model answers (max)",
              value: Math.max(...modelPhase(survival.edgeloop)),
              unit: "count" as const,
              target: { op: "==" as const, value: 1 },
              note: "the call was not yet made: after the restart it must run once",
            },
            {
              name: "Agents SDK: hook calls when killed while the model answers (max)",
              value: Math.max(...modelPhase(survival.sdk)),
              unit: "count" as const,
            },
          ]
        : []),
      {
        name: "Agents SDK: conversations completed after a kill mid-round",
        value: survival.sdk.filter((s) => s.completed).length,
        unit: "count",
        note: `of ${kills}; kills during: ${phases.join(", ")}`,
      },
      {
        name: "Agents SDK: hook calls for the interrupted tool call (max)",
        value: maxRuns(survival.sdk),
        unit: "count",
        note: `distinct tool call ids among them: ${maxDistinct(survival.sdk)}; the SDK's tool gets no idempotency key of its own`,
      },
    ],
    floor:
      "the Agents SDK itself: an `AIChatAgent` (npm `agents` + `@cloudflare/ai-chat`, AI SDK `ai` v6 `streamText` with `stopWhen`, `@ai-sdk/openai-compatible`) on its own wrangler dev server against the same scripted model, its messages alternating with edgeloop's",
    details: {
      rounds_per_message: rounds,
      blocks,
      edgeloop_round_ms: roundSummary(o),
      agents_sdk_round_ms: roundSummary(t),
      runtime_cpu_ms: cpu,
      survival,
      hook_calls_when_killed_during_the_model_answer: {
        edgeloop: modelPhase(survival.edgeloop),
        agents_sdk: modelPhase(survival.sdk),
      },
      all_edgeloop_completed: all(survival.edgeloop, (s) => s.completed),
      all_sdk_completed: all(survival.sdk, (s) => s.completed),
      hook_delay_ms: env.hook.delayMs,
    },
  };
}

/** Killed while the tool's hook waits, or while the model is still answering with the call. */
type Phase = "tool" | "model";

type Survival = {
  phase: Phase;
  completed: boolean;
  /** kill → the conversation's final answer, or null */
  restart_to_done_ms: number | null;
  hook_calls: number;
  distinct_calls: number;
  error?: string;
};

async function edgeloopMessage(env: BenchEnv, text: string, rounds: number): Promise<void> {
  const { status, body } = await sendMessage(env.worker.url, { agent_id: "bench-dev", text }, 60);
  if (status !== 200 || body.status !== "completed" || body.tool_calls.length !== rounds)
    throw new Error(`peer scenario, edgeloop: ${status} ${JSON.stringify(body).slice(0, 300)}`);
}

/**
 * When to kill: the hook's first arrival after `from` (the tool is running), or the model's first
 * request for `text` (it is still answering: its first turn is delayed).
 */
async function killPoint(env: BenchEnv, phase: Phase, from: number, text: string): Promise<void> {
  if (phase === "tool")
    await waitUntil(
      async () => env.hook.arrivals().length,
      (n) => n > from,
      { timeoutMs: 30_000, intervalMs: 10, what: "the slow tool to call its hook" },
    );
  else
    await waitUntil(
      async () => requestTimes(env.llm, text).length,
      (n) => n > 0,
      { timeoutMs: 30_000, intervalMs: 10, what: "the model to be asked" },
    );
}

function tally(arrivals: HookArrival[], key: (a: HookArrival) => string | null) {
  return { hook_calls: arrivals.length, distinct_calls: new Set(arrivals.map(key)).size };
}

async function survivalEdgeloop(env: BenchEnv, phase: Phase, text: string): Promise<Survival> {
  const from = env.hook.arrivals().length;
  const accepted = await sendMessage(env.worker.url, { agent_id: "bench-dev", text });
  if (accepted.status !== 202) throw new Error(`survival: POST answered ${accepted.status}`);
  await killPoint(env, phase, from, text);
  const killedAt = Date.now();
  await env.restartWorker();
  return outcome(
    env,
    phase,
    from,
    killedAt,
    (a) => a.idempotency_key,
    () =>
      waitUntil(
        () => getConversation(env.worker.url, accepted.body.conversation_id),
        (c) => c.status === "completed",
        { timeoutMs: 60_000, intervalMs: 100, what: "edgeloop conversation to complete after the kill" },
      ),
  );
}

/** After the restart: waits for the conversation to finish, then counts the hook's calls since `from`. */
async function outcome(
  env: BenchEnv,
  phase: Phase,
  from: number,
  killedAt: number,
  key: (a: HookArrival) => string | null,
  finished: () => Promise<unknown>,
): Promise<Survival> {
  let error: string | undefined;
  try {
    await finished();
  } catch (e) {
    error = (e as Error).message.slice(0, 200);
  }
  const doneAt = Date.now();
  // A re-run started just before the end would still be on its way to the hook.
  await new Promise((r) => setTimeout(r, env.hook.delayMs));
  return {
    phase,
    completed: error === undefined,
    restart_to_done_ms: error === undefined ? doneAt - killedAt : null,
    ...tally(env.hook.arrivals().slice(from), key),
    ...(error ? { error } : {}),
  };
}

async function survivalPeer(
  env: BenchEnv,
  peer: LocalWorker,
  phase: Phase,
  text: string,
  name: string,
): Promise<{ peer: LocalWorker; result: Survival }> {
  const from = env.hook.arrivals().length;
  // The request dies with the runtime; its turn is what must survive.
  peerChat(peer.url, name, text).catch(() => undefined);
  await killPoint(env, phase, from, text);
  const killedAt = Date.now();
  await peer.kill();
  const restarted = await startPeerWorker({
    llmUrl: env.llm.url,
    hookUrl: env.hook.url,
    persistDir: peer.persistDir,
    port: peer.port,
    inspector: env.inspector,
  });
  // Reading the messages also wakes the agent, as a reconnecting client would.
  const result = await outcome(
    env,
    phase,
    from,
    killedAt,
    (a) => a.tool_call_id,
    () =>
      waitUntil(
        () => peerMessages(restarted.url, name),
        (ms) =>
          ms.some((m) => m.role === "assistant" && m.parts.some((p) => p.type === "text" && p.text === "survived")),
        { timeoutMs: 60_000, intervalMs: 250, what: "Agents SDK conversation to complete after the kill" },
      ),
  );
  return { peer: restarted, result };
}
