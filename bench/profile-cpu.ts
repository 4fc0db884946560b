/**
 * `npx tsx bench/profile-cpu.ts [rounds]`: a CPU profile of the worker (all its Durable Objects)
 * while one conversation runs `rounds` instant tool round trips, taken through wrangler dev's
 * inspector (Chrome DevTools protocol, `Profiler.start/stop`). `--fleet`: the fleet scenario's load
 * instead (its simulated devices, 100 concurrent conversations of 3 rounds). Prints where a tool
 * call's time goes by part (bench/lib/profile-breakdown.ts), then self and inclusive time by
 * function, heaviest first. Not part of the report; it shows what a step spends its CPU on.
 */
import WebSocket from "ws";
import { sendMessage } from "../test/helpers/api.js";
import { deviceToken, FLEET_SIZE, startBenchEnv } from "./lib/bench-env.js";
import { FakeDevice } from "./lib/fake-device.js";
import { breakdown } from "./lib/profile-breakdown.js";

type Node = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
};
type Profile = { nodes: Node[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] };

const fleetMode = process.argv.includes("--fleet");
const rounds = fleetMode ? 3 : Math.min(Number(process.argv[2] ?? 80), 100);
const calls = fleetMode ? 300 : rounds;
async function startFleet() {
  return Promise.all(
    Array.from({ length: FLEET_SIZE }, (_, i) =>
      FakeDevice.connect(env.worker.url, `fleet-${i}`, deviceToken(`fleet-${i}`)),
    ),
  );
}
const env = await startBenchEnv(true, { inspector: true });
try {
  const args = env.worker.child.proc.spawnargs;
  const port = args[args.indexOf("--inspector-port") + 1];
  const [target] = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as { webSocketDebuggerUrl: string }[];
  const ws = new WebSocket(target!.webSocketDebuggerUrl);
  await new Promise((r) => ws.once("open", r));
  let nextId = 1;
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const id = nextId++;
      const onMessage = (data: WebSocket.RawData) => {
        const msg = JSON.parse(data.toString()) as { id?: number; result?: Record<string, unknown> };
        if (msg.id !== id) return;
        ws.off("message", onMessage);
        resolve(msg.result ?? {});
      };
      ws.on("message", onMessage);
      ws.send(JSON.stringify({ id, method, params }));
    });
  env.llm.setRules([
    {
      match: "^bench cpu",
      turns: [
        ...Array.from({ length: rounds }, () => ({ tool_calls: [{ name: "bench_ok", arguments: {} }] })),
        { content: "done" },
      ],
    },
  ]);
  // Warm up (first requests compile code), then profile a second conversation.
  const fleet = fleetMode ? await startFleet() : null;
  const run = (tag: string) =>
    fleet
      ? Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            sendMessage(
              env.worker.url,
              { agent_id: `fleet-${i % 20}`, text: `bench cpu ${tag} ${Date.now()} ${i}` },
              60,
            ),
          ),
        )
      : sendMessage(env.worker.url, { agent_id: "bench-dev", text: `bench cpu ${tag} ${Date.now()}` }, 60);
  await run("warm");
  await call("Profiler.enable");
  await call("Profiler.setSamplingInterval", { interval: 200 });
  await call("Profiler.start");
  const t0 = Date.now();
  await run("profiled");
  const wall = Date.now() - t0;
  const { profile } = (await call("Profiler.stop")) as { profile: Profile };
  for (const d of fleet ?? []) d.close();
  if (process.env.PROFILE_OUT)
    (await import("node:fs")).writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile));
  ws.close();

  const self = new Map<number, number>();
  for (const [i, id] of profile.samples.entries())
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  const byFn = new Map<string, number>();
  for (const n of profile.nodes) {
    const f = n.callFrame;
    const file = f.url.split("/").slice(-2).join("/");
    const key = `${f.functionName || "(anonymous)"} ${file}:${f.lineNumber + 1}`;
    byFn.set(key, (byFn.get(key) ?? 0) + (self.get(n.id) ?? 0));
  }
  const total = [...byFn.values()].reduce((a, b) => a + b, 0);
  const idle = [...byFn.entries()]
    .filter(([k]) => k.startsWith("(idle)") || k.startsWith("(program)"))
    .reduce((a, [, v]) => a + v, 0);
  // Inclusive time: a function's own samples plus everything it called (once per stack, so
  // recursion is not counted twice).
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const keyOf = (n: Node) =>
    `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber + 1}`;
  const inclusive = new Map<string, number>();
  for (const [id, ms] of self) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = keyOf(byId.get(cur)!);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + ms);
    }
  }
  console.log(
    `${rounds} rounds, wall ${wall} ms; profiled ${total.toFixed(0)} ms, of which idle/program ${idle.toFixed(0)} ms; busy per tool call ${((total - idle) / calls).toFixed(2)} ms`,
  );
  const parts = breakdown(profile);
  console.log(
    `-- where a tool call's busy time goes (ms per tool call; sampled wall time, so a busy machine inflates it)`,
  );
  for (const p of parts.parts)
    console.log(
      `${(p.ms / calls).toFixed(2).padStart(8)} ms  ${p.part}${p.sqlite_ms ? ` (of which SQLite ${(p.sqlite_ms / calls).toFixed(2)})` : ""}`,
    );
  console.log("-- self time");
  for (const [k, v] of [...byFn.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40))
    console.log(`${v.toFixed(1).padStart(8)} ms  ${k}`);
  console.log("-- inclusive time");
  for (const [k, v] of [...inclusive.entries()]
    .filter(([k]) => !k.startsWith("(root)"))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 70))
    console.log(`${v.toFixed(1).padStart(8)} ms  ${k}`);
} finally {
  await env.stop();
}
