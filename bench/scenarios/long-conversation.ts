import { startScriptedLlm } from "../../scripted-llm/server.js";
import { getConversation, sendMessage } from "../../test/helpers/api.js";
import { ADMIN_TOKEN, startLocalWorker } from "../../test/helpers/local-worker.js";
import type { BenchEnv } from "../lib/bench-env.js";
import { connectReportDevice, REPORT_TURN_RULES } from "../lib/report-device.js";
import type { ScenarioResult } from "../lib/result.js";
import { round } from "../lib/stats.js";

const AGENT = "bench-long";
const TOKEN = "bench-long-token";
const RESULT = "r".repeat(4096);

/**
 * A conversation that lives long: one conversation of many turns (a message, a tool call whose
 * result is 4 KB, an answer). Reports the input tokens of the model calls at turn 20, 100 and 200
 * (the scripted model's count: JSON characters / 4, messages and tools) and the total over the
 * conversation, summary calls included, against what the same calls would have sent without
 * compaction (the whole stored history before each call). Self-contained: its own worker (its own
 * LLM_CONTEXT_TOKENS), its own scripted model and a fake device answering 4 KB.
 */
export async function longConversation(env: BenchEnv): Promise<ScenarioResult> {
  const turns = env.quick ? 24 : 200;
  const checkpoints = env.quick ? [8, 16, 24] : [20, 100, 200];
  const window = env.quick ? 6000 : 16_000;
  const llm = await startScriptedLlm({
    port: 0,
    rules: REPORT_TURN_RULES,
  });
  const worker = await startLocalWorker({
    vars: {
      OPENAI_BASE_URL: llm.url,
      OPENAI_API_KEY: "scripted",
      LLM_MODEL: "scripted",
      LLM_CONTEXT_TOKENS: String(window),
      KEEP_RECENT_TURNS: "4",
      DEVICE_TOKENS: `${AGENT}:${TOKEN}`,
      // The front door's limits would throttle a conversation driven this fast.
      RATE_LIMIT_SENDER_PER_MIN: "1000000",
      RATE_LIMIT_SENDER_BURST: "1000000",
      RATE_LIMIT_AGENT_PER_MIN: "1000000",
      RATE_LIMIT_AGENT_BURST: "1000000",
    },
    inspector: false,
    name: "worker (long conversation)",
  });
  const device = await connectReportDevice(worker.url, AGENT, TOKEN, () => ({ result: RESULT }));
  try {
    const conversation_id = `long-${Date.now()}`;
    const started = Date.now();
    for (let n = 1; n <= turns; n++) {
      const { body } = await sendMessage(worker.url, { agent_id: AGENT, conversation_id, text: `turn ${n}` }, 60);
      if (body.status !== "completed") throw new Error(`turn ${n}: ${JSON.stringify(body).slice(0, 300)}`);
    }
    const wallS = (Date.now() - started) / 1000;
    const history = (await getConversation(worker.url, conversation_id)).messages;
    // The whole history's JSON before each message: what a call would send without compaction.
    const prefix = [0];
    for (const m of history) prefix.push(prefix.at(-1)! + JSON.stringify(m).length + 1);

    const perTurn = new Map<number, number>();
    let total = 0;
    let uncompacted = 0;
    let summaryCalls = 0;
    for (const r of llm.requests()) {
      const b = r.body as { messages: { role: string; content: string }[]; tools?: unknown[] };
      const tools = JSON.stringify(b.tools ?? []).length;
      const tokens = Math.ceil((JSON.stringify(b.messages).length + tools) / 4);
      total += tokens;
      const last = b.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
      if (last.startsWith("[edgeloop] Summarise")) {
        summaryCalls += 1;
        continue;
      }
      const n = Number(/^turn (\d+)/.exec(last)?.[1]);
      if (!n) continue;
      perTurn.set(n, Math.max(perTurn.get(n) ?? 0, tokens));
      // Call 1 of turn n follows its user message (index 4(n-1)); call 2 also its call and result.
      const upto = 4 * (n - 1) + (b.messages.at(-1)?.role === "tool" ? 3 : 1);
      uncompacted += Math.ceil((prefix[upto]! + tools) / 4);
    }
    const at = (n: number) => perTurn.get(n) ?? Number.NaN;
    /** The mean over the ten turns up to n: compaction makes a saw-tooth, this is its level. */
    const level = (n: number) => {
      const xs = Array.from({ length: Math.min(10, n) }, (_, i) => at(n - i));
      return xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    const [first, , lastTurn] = checkpoints as [number, number, number];
    const view = (await fetch(`${worker.url}/v1/conversations/${conversation_id}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    }).then((r) => r.json())) as { compactions?: unknown[] };
    return {
      id: "long_conversation",
      title: `Long conversation (${turns} turns, 4 KB tool results, LLM_CONTEXT_TOKENS ${window})`,
      repetitions: turns,
      metrics: [
        ...checkpoints.map((n) => ({
          name: `input tokens per model call at turn ${n}`,
          value: at(n),
          unit: "count" as const,
        })),
        {
          name: `input tokens, turn ${lastTurn} / turn ${first} (10-turn mean)`,
          value: round(level(lastTurn) / level(first)),
          unit: "ratio",
          target: { op: "<=", value: 1.3 },
          note: `single calls: ${round(at(lastTurn) / at(first))}`,
        },
        {
          name: "largest model call",
          value: Math.max(...perTurn.values()),
          unit: "count",
          target: { op: "<=", value: window },
        },
        { name: "total input tokens, summary calls included", value: total, unit: "count" },
        { name: "total input tokens without compaction (whole history every call)", value: uncompacted, unit: "count" },
        { name: "total with / without compaction", value: round(total / uncompacted, 3), unit: "ratio" },
        { name: "summary calls", value: summaryCalls, unit: "count" },
      ],
      floor: "the same calls with the whole history: the no-compaction quadratic",
      details: {
        turns,
        window,
        wall_s: round(wallS, 1),
        compactions: view.compactions?.length ?? 0,
        input_tokens_by_turn: Object.fromEntries([...perTurn].filter(([n]) => n % 10 === 0 || n <= 10)),
        ten_turn_mean: Object.fromEntries(checkpoints.map((n) => [n, round(level(n))])),
        history_messages: history.length,
      },
    };
  } finally {
    device.close();
    await worker.stop();
    await llm.close();
  }
}
