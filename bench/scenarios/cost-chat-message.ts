import { ADMIN_TOKEN, type LocalWorker } from "../../test/helpers/local-worker.js";
import { postUpdate, textOf, textUpdate } from "../../test/helpers/telegram-chat.js";
import { startTelegramStandin } from "../../test/helpers/telegram-standin.js";
import { waitUntil } from "../../test/helpers/wait.js";
import { type BenchEnv, deviceToken, workerVars } from "../lib/bench-env.js";
import { billedRequests, type CostTotals, costDelta, costSnapshot } from "../lib/cost-log.js";
import { startCostWorker } from "../lib/cost-worker.js";
import { FakeDevice } from "../lib/fake-device.js";
import type { ScenarioResult } from "../lib/result.js";
import { round } from "../lib/stats.js";

const BOT_TOKEN = "123456:bench-chat-cost";
const SECRET = "bench-chat-cost-secret";
const USER = 4242;
/** One of the bench's device ids (bench-env.ts gives it a token); a simulated device answers. */
const DEVICE = "bench-cost";
/** Measured one after another, after an unmeasured one; the metric is their mean. */
const MESSAGES = 3;
/**
 * Counted with this same scenario on the tree before a run's output went one way (commit 274f5d0):
 * 17 RPC calls + 2 alarms + the result frame. Beside what is left now: two idempotency claims
 * (IdempotencyDO begin and finish, twice), the sender's LimiterDO, the conversation's owner asked
 * first, the thread's alarm for the message and for the reply, and the thread polling getEvents
 * every second while the run went (twice for this short run; every 3 s for as long as a run waits).
 */
const BEFORE = 19.05;

/**
 * Scenario 8b: the requests of one chat message whose run makes one device tool call — a Telegram
 * update through the webhook to the answer in the chat — counted as the cost scenario counts them
 * (bench/lib/cost-meter.ts: RPC calls, fetches and alarms into Durable Objects, a WebSocket message
 * at 1/20). The platform is a local stand-in of the Bot API; the model is the scripted one.
 */
export async function costChatMessage(env: BenchEnv): Promise<ScenarioResult> {
  env.llm.setRules([
    {
      match: "^bench chat cost ",
      turns: [{ tool_calls: [{ name: "bench_ok", arguments: {} }] }, { content: "chat cost done" }],
    },
  ]);
  const telegram = await startTelegramStandin(BOT_TOKEN);
  let worker: LocalWorker | undefined;
  let device: FakeDevice | undefined;
  const counted: CostTotals[] = [];
  try {
    worker = await startCostWorker({
      ...workerVars(env.llm.url),
      TELEGRAM_BOT_TOKEN: BOT_TOKEN,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      TELEGRAM_API_BASE_URL: telegram.url,
    });
    device = await FakeDevice.connect(worker.url, DEVICE, deviceToken(DEVICE));
    const granted = await fetch(`${worker.url}/v1/channels/grants`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ platform: "telegram", subject: `user:${USER}`, agents: [DEVICE], target: DEVICE }),
    });
    if (!granted.ok) throw new Error(`chat cost: POST /v1/channels/grants answered ${granted.status}`);
    const w = worker;
    const send = async (n: number) => {
      const text = `bench chat cost ${Date.now()} ${n}`;
      const before = costSnapshot(w.child.output());
      const answers = () =>
        telegram.calls().filter((c) => /^(sendMessage|editMessageText)$/.test(c.method) && textOf(c).includes("done"));
      const seen = answers().length;
      const posted = await postUpdate(w.url, textUpdate(USER, text), SECRET);
      if (posted.status !== 200) throw new Error(`chat cost: webhook answered ${posted.status}`);
      await waitUntil(
        async () => answers().length,
        (k) => k > seen,
        { timeoutMs: 60_000, intervalMs: 20, what: `the answer to "${text}" in the chat` },
      );
      // Trailing work (the run's metrics, the thread's last pass) lands after the answer is sent.
      await new Promise((r) => setTimeout(r, 1500));
      return costDelta(before, costSnapshot(w.child.output()), (c) => c.class).get("*")!;
    };
    // Unmeasured: a fresh isolate, the thread's and the device's first use.
    await send(0);
    for (let i = 1; i <= MESSAGES; i++) counted.push(await send(i));
  } finally {
    device?.close();
    await worker?.stop();
    await telegram.close();
  }
  const mean = (f: (c: CostTotals) => number) => counted.reduce((n, c) => n + f(c), 0) / counted.length;
  const sums: Record<string, number> = {};
  for (const c of counted) for (const [m, n] of Object.entries(c.rpc_by_method)) sums[m] = (sums[m] ?? 0) + n;
  const byMethod = Object.fromEntries(Object.entries(sums).map(([m, n]) => [m, round(n / counted.length, 2)]));
  const requests = round(mean(billedRequests), 2);
  return {
    id: "cost_chat_message",
    title: "8b. Requests of one chat message with one device tool call (counted)",
    repetitions: MESSAGES,
    metrics: [
      {
        name: "chat message with one device tool call: billed Durable Object requests",
        value: requests,
        unit: "count",
        target: { op: "<=", value: 8 },
        note: `a Telegram update to its answer in the chat; RPC calls + fetches + alarms + WebSocket messages / 20 (the device's result frame is the 0.05). Before the run's output went one way: ${BEFORE}. RPC by method: ${JSON.stringify(byMethod)}; alarms ${round(
          mean((c) => c.alarm),
          2,
        )}`,
      },
    ],
    details: {
      before: BEFORE,
      rpc: round(
        mean((c) => c.rpc),
        2,
      ),
      alarms: round(
        mean((c) => c.alarm),
        2,
      ),
      websocket_messages: round(
        mean((c) => c.websocket_message),
        2,
      ),
      rpc_by_method: byMethod,
      counted,
    },
  };
}
