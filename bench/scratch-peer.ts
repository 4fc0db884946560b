import { join } from "node:path";
import { startScriptedLlm } from "../scripted-llm/server.js";
import { startLocalWorker } from "../test/helpers/local-worker.js";
import { REPO_ROOT } from "../test/helpers/processes.js";

const llm = await startScriptedLlm({ port: 0 });
llm.setRules([
  {
    match: "^peer",
    turns: [
      ...Array.from({ length: 3 }, () => ({ tool_calls: [{ name: "echo", arguments: { text: "hi" } }] })),
      { content: "done" },
    ],
  },
]);
const w = await startLocalWorker({
  config: join(REPO_ROOT, "bench/peer-agents-sdk/wrangler.toml"),
  name: "peer",
  vars: { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: "x", COST_METER: "on", HOOK_URL: "http://127.0.0.1:9/" },
  inspector: false,
});
try {
  const t0 = performance.now();
  const r = await fetch(`${w.url}/chat?name=a`, { method: "POST", body: JSON.stringify({ text: "peer one" }) });
  console.log(r.status, await r.text(), performance.now() - t0);
  const times = llm.requests().map((x) => x.received_ms);
  console.log(times.slice(1).map((t, i) => (t - times[i]!).toFixed(2)));
  console.log(JSON.stringify(llm.requests()[1]?.body).slice(0, 1500));
  await new Promise((r) => setTimeout(r, 300));
  console.log(
    w.child
      .output()
      .split("\n")
      .filter((l) => l.includes("cost_meter"))
      .slice(-3)
      .join("\n"),
  );
  console.log(w.child.output().slice(0, 3000));
} finally {
  await w.stop();
  await llm.close();
}
