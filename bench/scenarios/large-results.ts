import { performance } from "node:perf_hooks";
import { getConversation, sendMessage } from "../../test/helpers/api.js";
import type { BenchEnv } from "../lib/bench-env.js";
import { peakRssMb, resetPeakRss, rssMb } from "../lib/memory.js";
import type { ScenarioResult } from "../lib/result.js";
import { round, roundSummary, summarize } from "../lib/stats.js";

const PRINTED_BYTES = 10 * 1024 * 1024;

/**
 * Scenario 6: a tool printing 10 MB. The agent's peak RSS while it runs (VmHWM, reset before each
 * call), the bytes of the tool message that reaches the conversation (capped twice: by the agent
 * and by MAX_RESULT_CHARS), and the time to the reply, against the same conversation shape with a
 * tool that prints 3 bytes, measured alternately.
 */
export async function largeResults(env: BenchEnv): Promise<ScenarioResult> {
  const reps = env.quick ? 1 : 6;
  env.llm.setRules([
    { match: "^bench big", turns: [{ tool_calls: [{ name: "bench_big", arguments: {} }] }, { content: "done" }] },
    { match: "^bench small", turns: [{ tool_calls: [{ name: "bench_ok", arguments: {} }] }, { content: "done" }] },
  ]);
  const pid = env.agent.child.proc.pid!;
  const idleRss = rssMb(pid);
  const big: number[] = [];
  const small: number[] = [];
  const peaks: number[] = [];
  let delivered = 0;
  /** error types of 10 MB calls that did not succeed (the reply still comes, with the error) */
  const failures: string[] = [];
  for (let r = 0; r < reps; r++) {
    resetPeakRss(pid);
    const t0 = performance.now();
    const { body } = await sendMessage(
      env.worker.url,
      { agent_id: "bench-dev", text: `bench big ${Date.now()} ${r}` },
      60,
    );
    big.push(performance.now() - t0);
    peaks.push(peakRssMb(pid));
    if (body.status !== "completed") throw new Error(`large result run: ${JSON.stringify(body).slice(0, 300)}`);
    const conv = await getConversation(env.worker.url, body.conversation_id);
    const tool = conv.messages.find((m) => m.role === "tool");
    delivered = Math.max(delivered, Buffer.byteLength(tool?.content ?? ""));
    const call = body.tool_calls[0];
    if (call?.status !== "success") failures.push(call?.error_type ?? call?.status ?? "no call");

    const t1 = performance.now();
    const smallRun = await sendMessage(
      env.worker.url,
      { agent_id: "bench-dev", text: `bench small ${Date.now()} ${r}` },
      60,
    );
    if (smallRun.body.status !== "completed") throw new Error(`small result run: ${smallRun.body.status}`);
    small.push(performance.now() - t1);
  }
  const b = summarize(big);
  const s = summarize(small);
  const p = summarize(peaks);
  return {
    id: "large_results",
    title: "6. Large results (a tool printing 10 MB)",
    repetitions: b.n,
    metrics: [
      { name: "time to reply, 10 MB tool / 3-byte tool (median)", value: round(b.median / s.median), unit: "ratio" },
      { name: "time to reply (10 MB tool)", value: round(b.median), unit: "ms" },
      { name: "agent peak RSS during the call", value: round(p.max, 1), unit: "MB" },
      { name: "agent RSS before", value: round(idleRss, 1), unit: "MB" },
      {
        name: "bytes that reach the conversation",
        value: delivered,
        unit: "bytes",
        note: `of ${PRINTED_BYTES} printed`,
      },
      {
        name: "10 MB calls that failed instead of returning a capped result",
        value: failures.length,
        unit: "count",
        target: { op: "==", value: 0 },
        ...(failures.length ? { note: `error_type: ${[...new Set(failures)].join(", ")}` } : {}),
      },
    ],
    floor: "the same one-call conversation with a tool that prints `ok`, measured alternately",
    details: {
      failed_calls: failures,
      printed_bytes: PRINTED_BYTES,
      delivered_bytes: delivered,
      reply_ms_big: roundSummary(b),
      reply_ms_small: roundSummary(s),
      agent_peak_rss_mb: roundSummary(p),
      agent_rss_before_mb: round(idleRss, 1),
    },
  };
}
