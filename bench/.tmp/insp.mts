import { startBenchEnv } from "../lib/bench-env.js";
const env = await startBenchEnv(true);
try {
  const args = env.worker.child.proc.spawnargs;
  const port = args[args.indexOf("--inspector-port") + 1];
  const list = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  console.log(JSON.stringify(list, null, 1));
} finally { await env.stop(); }
