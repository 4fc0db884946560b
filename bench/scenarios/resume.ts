import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getConversation, sendMessage } from "../../test/helpers/api.js";
import { waitUntil } from "../../test/helpers/wait.js";
import type { BenchEnv } from "../lib/bench-env.js";
import { requestTimes } from "../lib/llm-requests.js";
import type { ScenarioResult } from "../lib/result.js";
import { round, roundSummary, summarize } from "../lib/stats.js";

/**
 * Scenario 5: kill -9 the local runtime while a 3 s tool runs on the device, start it again on
 * the same state, and time restart → the conversation's next model request. The tool appends a
 * line per run to a file, so its line count proves it ran once. The agent reconnects with its
 * backoff capped at 1 s, so what is timed is the orchestrator's resume, not the agent's patience.
 */
export async function resume(env: BenchEnv): Promise<ScenarioResult> {
  const reps = env.quick ? 1 : 7;
  const agent = await env.startBenchAgent("bench-resume", ["--reconnect-max-ms", "1000"]);
  env.llm.setRules([
    {
      match: "^bench resume",
      turns: [{ tool_calls: [{ name: "bench_slow", arguments: {} }] }, { content: "Tool said: {{last_tool_result}}" }],
    },
  ]);
  const runsFile = join(agent.workspace, "bench-runs.txt");
  const toReady: number[] = [];
  const readyToStep: number[] = [];
  const toStep: number[] = [];
  const runs: number[] = [];
  for (let r = 0; r < reps; r++) {
    writeFileSync(runsFile, "");
    const text = `bench resume ${Date.now()} ${r}`;
    const accepted = await sendMessage(env.worker.url, { agent_id: "bench-resume", text });
    if (accepted.status !== 202) throw new Error(`resume: POST answered ${accepted.status}`);
    const id = accepted.body.conversation_id;
    await waitUntil(
      async () => readFileSync(runsFile, "utf8"),
      (t) => t.includes("started"),
      { timeoutMs: 20_000, what: "slow tool to start" },
    );
    const restartAt = Date.now();
    await env.restartWorker();
    const readyAt = Date.now();
    const [, next] = await waitUntil(
      async () => requestTimes(env.llm, text),
      (t) => t.length >= 2,
      { timeoutMs: 60_000, intervalMs: 20, what: "the next model request after the restart" },
    );
    const done = await waitUntil(
      () => getConversation(env.worker.url, id),
      (c) => c.status === "completed",
      { timeoutMs: 60_000, what: "conversation to complete" },
    );
    const finals = done.messages.filter((m) => m.role === "assistant" && !m.tool_calls?.length);
    if (finals.length !== 1 || !finals[0]!.content?.includes("runs=1"))
      throw new Error(`resume: unexpected replies ${JSON.stringify(finals)}`);
    toReady.push(readyAt - restartAt);
    readyToStep.push(next! - readyAt);
    toStep.push(next! - restartAt);
    runs.push(readFileSync(runsFile, "utf8").trim().split("\n").length);
  }
  const ready = summarize(toReady);
  const step = summarize(readyToStep);
  const total = summarize(toStep);
  const extraRuns = runs.filter((n) => n !== 1).length;
  return {
    id: "resume",
    title: "5. Resume (runtime killed mid-tool, restarted on the same state)",
    repetitions: total.n,
    duplicated: extraRuns,
    metrics: [
      {
        name: "restart → next step / restart → runtime ready (median)",
        value: round(total.median / ready.median),
        unit: "ratio",
      },
      { name: "restart → runtime ready (dev server up)", value: round(ready.median), unit: "ms" },
      { name: "runtime ready → next model request", value: round(step.median), unit: "ms" },
      { name: "restart → next model request", value: round(total.median), unit: "ms" },
      {
        name: "tool runs per call (must be 1)",
        value: Math.max(...runs),
        unit: "count",
        target: { op: "==", value: 1 },
      },
    ],
    floor:
      "the runtime's own restart: from kill -9 to wrangler's dev server answering /healthz on the same port and state",
    details: {
      restart_to_ready_ms: roundSummary(ready),
      ready_to_next_step_ms: roundSummary(step),
      restart_to_next_step_ms: roundSummary(total),
      tool_runs_per_rep: runs,
      agent_reconnect_max_ms: 1000,
    },
  };
}
