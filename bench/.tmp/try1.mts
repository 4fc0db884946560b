import { startBenchEnv } from "../lib/bench-env.js";
import { stepOverhead } from "../scenarios/step-overhead.js";
const t0 = Date.now();
const env = await startBenchEnv(true);
console.log("env up", Date.now() - t0);
try {
  const t1 = Date.now();
  console.log(JSON.stringify(await stepOverhead(env), null, 1));
  console.log("s1", Date.now() - t1);
} finally { await env.stop(); }
