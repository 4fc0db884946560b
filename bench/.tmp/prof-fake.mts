import { sendMessage } from "../../test/helpers/api.js";
import { startBenchEnv, deviceToken } from "../lib/bench-env.js";
import { storedEvents } from "../lib/conversation-events.js";
import { FakeDevice } from "../lib/fake-device.js";
import { requestTimes } from "../lib/llm-requests.js";
import { round, summarize } from "../lib/stats.js";
const rounds = 80;
const env = await startBenchEnv(true);
try {
  const dev = await FakeDevice.connect(env.worker.url, "fleet-0", deviceToken("fleet-0"));
  env.llm.setRules([{ match: "^bench profile", turns: [...Array.from({ length: rounds }, () => ({ tool_calls: [{ name: "bench_ok", arguments: {} }] })), { content: "done" }] }]);
  for (const agent of ["fleet-0", "bench-dev"]) {
  const text = `bench profile ${Date.now()} ${agent}`;
  const { body } = await sendMessage(env.worker.url, { agent_id: agent, text }, 60);
  const llm = requestTimes(env.llm, text);
  const events = await storedEvents(env.worker.url, body.conversation_id);
  const starts = events.filter((e) => e.type === "tool_execution_start").map((e) => e.at);
  const ends = events.filter((e) => e.type === "tool_execution_end").map((e) => e.at);
  const parts = { step: [] as number[], A: [] as number[], B: [] as number[], C: [] as number[] };
  for (let i = 5; i < rounds; i++) {
    parts.step.push(llm[i + 1]! - llm[i]!); parts.A.push(starts[i]! - llm[i]!); parts.B.push(ends[i]! - starts[i]!); parts.C.push(llm[i + 1]! - ends[i]!);
  }
  console.log(agent, Object.entries(parts).map(([k, v]) => `${k}=${round(summarize(v).median)}`).join(" "));
  }
  dev.close();
} finally { await env.stop(); }
