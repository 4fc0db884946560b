import { readdirSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { type Child, startChild } from "../../test/helpers/processes.js";
import { tempDir } from "../../test/helpers/temp-dir.js";
import { BENCH_SKILLS, type BenchEnv } from "../lib/bench-env.js";
import { startFakeHub } from "../lib/fake-hub.js";
import { rssMb, sampleRss } from "../lib/memory.js";
import { packagedBundles } from "../lib/packaged-bundles.js";
import type { ScenarioResult } from "../lib/result.js";
import { round, roundSummary, summarize } from "../lib/stats.js";

/**
 * Scenario 9: the device agent's footprint, for small boards. Start-up = from spawning
 * `edgeloop-agent` (the bundle its package ships, as a device runs it) to its `hello` arriving at
 * a loopback stand-in hub; the first start only warms the file cache and is not counted. Then, on
 * the last one started: its RSS at rest, its RSS while 5 tools (300 ms sleeps) run at once, and
 * how often it wakes while idle (context switches of all its threads, per minute).
 */
export async function deviceFootprint(env: BenchEnv): Promise<ScenarioResult> {
  const starts = env.quick ? 2 : 6;
  const idleWindowMs = env.quick ? 3_000 : 20_000;
  const hub = await startFakeHub();
  const startup: number[] = [];
  const { agent: bundle } = await packagedBundles();
  let agent: Child | null = null;
  let idleRss = 0;
  let loadedRss = 0;
  let wakeupsPerMin = 0;
  try {
    for (let i = 0; i <= starts; i++) {
      await agent?.stop();
      const agentId = `footprint-${i}`;
      const started = performance.now();
      agent = startChild(
        process.execPath,
        [
          bundle,
          ...["--url", hub.url, "--agent-id", agentId, "--token", "unused"],
          ...["--workspace", tempDir("edgeloop-ws-"), "--state-dir", tempDir("edgeloop-agent-state-")],
          ...["--skills", BENCH_SKILLS],
        ],
        { name: agentId },
      );
      const child = agent;
      const exited = new Promise<never>((_, reject) =>
        child.proc.once("exit", (code) => reject(new Error(`agent exited ${code}: ${child.output().slice(-500)}`))),
      );
      exited.catch(() => undefined);
      const ms = (await Promise.race([hub.hello(agentId), exited])) - started;
      if (i > 0) startup.push(ms);
    }
    const pid = agent!.proc.pid!;
    // At rest: after its start-up work (and any timers it set then) has settled.
    await new Promise((r) => setTimeout(r, 1_000));
    idleRss = rssMb(pid);
    const before = contextSwitches(pid);
    await new Promise((r) => setTimeout(r, idleWindowMs));
    wakeupsPerMin = ((contextSwitches(pid) - before) / idleWindowMs) * 60_000;
    const sampler = sampleRss(pid);
    for (let r = 0; r < 2; r++)
      await Promise.all(Array.from({ length: 5 }, (_, i) => hub.run("bench_sleep", `fp-${Date.now()}-${r}-${i}`)));
    loadedRss = sampler.stop();
  } finally {
    await agent?.stop();
    await hub.close();
  }
  const s = summarize(startup);
  return {
    id: "device_footprint",
    title: "9. Device agent footprint (for small boards)",
    repetitions: s.n,
    metrics: [
      {
        name: "start-up: spawn → hello at the hub (median)",
        value: round(s.median),
        unit: "ms",
        target: { op: "<=", value: 400 },
      },
      { name: "idle RSS", value: round(idleRss, 1), unit: "MB", target: { op: "<=", value: 60 } },
      { name: "RSS with 5 concurrent tools (max)", value: round(loadedRss, 1), unit: "MB" },
      {
        name: "wake-ups per minute idle",
        value: round(wakeupsPerMin, 1),
        unit: "count",
        note: `context switches of all the agent's threads over ${idleWindowMs / 1000} s at rest, per minute`,
      },
    ],
    floor: "none: absolute targets (idle RSS ≤ 60 MB, start-up ≤ 400 ms on this machine)",
    details: {
      startup_ms: roundSummary(s),
      idle_window_ms: idleWindowMs,
      idle_rss_mb: idleRss,
      loaded_rss_mb: loadedRss,
    },
  };
}

/** Voluntary + involuntary context switches of every thread of `pid` (Linux). */
function contextSwitches(pid: number): number {
  let n = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8");
      for (const m of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)/gm)) n += Number(m[1]);
    } catch {
      // the thread ended
    }
  }
  return n;
}
