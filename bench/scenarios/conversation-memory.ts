import { startScriptedLlm } from "../../scripted-llm/server.js";
import { sendMessage } from "../../test/helpers/api.js";
import { ADMIN_TOKEN, startLocalWorker } from "../../test/helpers/local-worker.js";
import type { BenchEnv } from "../lib/bench-env.js";
import { InspectorHeap } from "../lib/inspector-heap.js";
import { noisePng } from "../lib/noise-png.js";
import { connectReportDevice, REPORT_TURN_RULES } from "../lib/report-device.js";
import type { Metric, ScenarioResult } from "../lib/result.js";
import { round } from "../lib/stats.js";

const AGENT = "bench-memory";
const TOKEN = "bench-memory-token";
const RESULT = "r".repeat(4096);
const IMAGE_BYTES = 200_000;
const WINDOW = 16_000;
/** heap at the last checkpoint / heap at the first: flat means the history is not held */
const TARGET_RATIO = 1.5;

/**
 * A conversation's memory over its life (docs/architecture.md#bounded-memory): one conversation of
 * many turns (a message, a tool call whose result is 4 KB, with a 200 KB PNG every tenth call, an
 * answer), under `wrangler dev` as users run it, compacting at LLM_CONTEXT_TOKENS. At each
 * checkpoint the worker's JavaScript heap is read over wrangler's DevTools inspector after a forced
 * garbage collection. The isolate holds the worker and every Durable Object of this worker; the
 * only ones that live here are this conversation and its device's hub, so what grows is theirs.
 */
export async function conversationMemory(env: BenchEnv): Promise<ScenarioResult> {
  const checkpoints = env.quick ? [10, 50, 100] : [100, 1000, 5000];
  const turns = checkpoints.at(-1)!;
  const image = noisePng(IMAGE_BYTES).toString("base64");
  const llm = await startScriptedLlm({
    port: 0,
    rules: REPORT_TURN_RULES,
  });
  const worker = await startLocalWorker({
    vars: {
      OPENAI_BASE_URL: llm.url,
      OPENAI_API_KEY: "scripted",
      LLM_MODEL: "scripted",
      LLM_CONTEXT_TOKENS: String(WINDOW),
      KEEP_RECENT_TURNS: "4",
      DEVICE_TOKENS: `${AGENT}:${TOKEN}`,
      RATE_LIMIT_SENDER_PER_MIN: "1000000",
      RATE_LIMIT_SENDER_BURST: "1000000",
      RATE_LIMIT_AGENT_PER_MIN: "1000000",
      RATE_LIMIT_AGENT_BURST: "1000000",
    },
    // The heap is read over the inspector `wrangler dev` opens.
    inspector: true,
    name: "worker (conversation memory)",
  });
  const device = await connectReportDevice(worker.url, AGENT, TOKEN, (n) =>
    n % 10 === 0
      ? {
          result: RESULT,
          content: [
            { type: "text", text: RESULT },
            { type: "image", data: image, mimeType: "image/png" },
          ],
        }
      : { result: RESULT },
  );
  // Attached once, before the first turn: wrangler's inspector proxy relays what it buffered to a
  // client that attaches late, which on a loaded machine held a late attach's answers back.
  const heap = await InspectorHeap.connect(worker.inspectorPort!);
  try {
    const conversation_id = `memory-${Date.now()}`;
    const view = (query = "") =>
      fetch(`${worker.url}/v1/conversations/${conversation_id}${query}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      }).then((r) => r.json() as Promise<{ messages_total?: number; compactions?: unknown[] }>);
    const heapMb = new Map<number, number>();
    const started = Date.now();
    for (let n = 1; n <= turns; n++) {
      const { body } = await sendMessage(worker.url, { agent_id: AGENT, conversation_id, text: `turn ${n}` }, 60);
      if (body.status !== "completed") throw new Error(`turn ${n}: ${JSON.stringify(body).slice(0, 300)}`);
      // The scripted model records every request; this bench's process must not be what grows.
      llm.reset();
      if (checkpoints.includes(n)) heapMb.set(n, (await heap.usedAfterGc(() => view("?limit=1"))) / 1e6);
    }
    const wallS = (Date.now() - started) / 1000;
    const last = await view("?limit=1");
    const [first, middle, end] = checkpoints as [number, number, number];
    const at = (n: number) => round(heapMb.get(n) ?? Number.NaN, 2);
    const metrics: Metric[] = [
      ...checkpoints.map((n) => ({ name: `worker heap after GC at turn ${n}`, value: at(n), unit: "MB" as const })),
      {
        name: `heap at turn ${end} / heap at turn ${first}`,
        value: round(at(end) / at(first), 3),
        unit: "ratio",
        target: { op: "<=", value: TARGET_RATIO },
        note: `turn ${middle} / turn ${first}: ${round(at(middle) / at(first), 3)}`,
      },
      {
        name: `heap growth per turn, turns ${first}–${end}`,
        value: Math.round(((at(end) - at(first)) * 1e6) / (end - first)),
        unit: "bytes",
      },
    ];
    return {
      id: "conversation_memory",
      title: `Conversation memory (${turns} turns, 4 KB results, a ${IMAGE_BYTES / 1000} KB PNG every 10th, LLM_CONTEXT_TOKENS ${WINDOW})`,
      repetitions: turns,
      metrics,
      floor:
        "the heap at the first checkpoint: a conversation that holds only what its next model call needs stays there",
      details: {
        turns,
        window: WINDOW,
        wall_s: round(wallS, 1),
        history_messages: last.messages_total ?? null,
        compactions: last.compactions?.length ?? 0,
        images: Math.floor(turns / 10),
        heap_mb: Object.fromEntries(heapMb),
        method:
          "wrangler dev; HeapProfiler.collectGarbage then Runtime.getHeapUsage over its DevTools inspector (usedSize)",
      },
    };
  } catch (e) {
    throw new Error(`${(e as Error).message}\n--- worker output ---\n${worker.child.output().slice(-3000)}`);
  } finally {
    heap.close();
    device.close();
    await worker.stop();
    await llm.close();
  }
}
