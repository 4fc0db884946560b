import { join } from "node:path";
import { startAgent } from "../../test/helpers/device-agent.js";
import { BENCH_SKILLS, type BenchEnv } from "../lib/bench-env.js";
import { directSpawnPid, spawnDirect } from "../lib/direct-spawn.js";
import { startFakeHub, toolCommand } from "../lib/fake-hub.js";
import { anonRssMb, rssMb, sampleRss } from "../lib/memory.js";
import { packagedBundles } from "../lib/packaged-bundles.js";
import { blockRatios, repeatedRatio } from "../lib/repeats.js";
import type { ScenarioResult } from "../lib/result.js";
import { startSocketHop } from "../lib/socket-hop.js";
import { round, roundSummary, summarize } from "../lib/stats.js";

/**
 * Scenario 4: the device agent alone. A real agent connected to a loopback stand-in hub runs the
 * trivial skill binary (command frame → result frame), against `child_process.spawn` of the same
 * binary from a lean process. Samples alternate, so drift on a shared machine hits both alike.
 *
 * A fork costs more the more anonymous memory the forking process has (copy-on-write setup for
 * every page), and the agent has ws, zod and its own code in memory. So a third sample spawns from
 * a process grown by as much anonymous memory as the agent has over the lean one, in JavaScript
 * objects like the agent's (spawn-floor.mjs says why not Buffers).
 *
 * A fourth sample is the socket hop alone: a round trip to a process that only echoes (socket-hop.ts).
 * Direct spawn + that hop is what an agent that cost nothing would take, so it shows how low the
 * ratio can go for anything reached over a socket on this machine.
 */
export async function deviceExecution(env: BenchEnv): Promise<ScenarioResult> {
  const n = env.quick ? 20 : 200;
  const loadReps = env.quick ? 2 : 6;
  const hub = await startFakeHub();
  const hop = await startSocketHop();
  const agent = await startAgent({
    url: hub.url,
    agentId: "bench-exec",
    token: "unused",
    skills: [BENCH_SKILLS],
    bin: (await packagedBundles()).agent,
  });
  const pid = agent.child.proc.pid!;
  const binary = join(BENCH_SKILLS, "bin/bench-ok");
  const viaAgent: number[] = [];
  const direct: number[] = [];
  const directAsBig: number[] = [];
  const hops: number[] = [];
  let ballastMb = 0;
  let idleRss = 0;
  let loadedRss = 0;
  try {
    for (let i = 0; i < 5; i++) {
      await hub.run("bench_ok", `warm-${Date.now()}-${i}`);
      await spawnDirect(binary, agent.workspace);
    }
    ballastMb = Math.max(0, Math.round(anonRssMb(pid) - anonRssMb(directSpawnPid())));
    for (let i = 0; i < 5; i++) await spawnDirect(binary, agent.workspace, "{}", ballastMb);
    for (let i = 0; i < n; i++) {
      const { result, ms } = await hub.run("bench_ok", `exec-${Date.now()}-${i}`);
      if (result.status !== "success") throw new Error(`bench_ok failed: ${JSON.stringify(result)}`);
      viaAgent.push(ms);
      direct.push(await spawnDirect(binary, agent.workspace));
      directAsBig.push(await spawnDirect(binary, agent.workspace, "{}", ballastMb));
      // The same frame the agent gets, echoed back.
      hops.push(await hop.roundTrip(JSON.stringify(toolCommand("bench_ok", `hop-${i}`))));
    }
    await new Promise((r) => setTimeout(r, 500));
    idleRss = rssMb(pid);
    const sampler = sampleRss(pid);
    for (let r = 0; r < loadReps; r++) {
      await Promise.all(Array.from({ length: 5 }, (_, i) => hub.run("bench_sleep", `load-${Date.now()}-${r}-${i}`)));
    }
    loadedRss = sampler.stop();
  } finally {
    await agent.stop();
    await hub.close();
    await hop.close();
  }
  const a = summarize(viaAgent);
  const d = summarize(direct);
  const big = summarize(directAsBig);
  const h = summarize(hops);
  return {
    id: "device_execution",
    title:
      "4. Device execution overhead (agent running a trivial skill vs spawning it directly plus a bare socket hop)",
    repetitions: Math.min(a.n, d.n),
    metrics: [
      repeatedRatio(
        "agent / (direct spawn + bare WebSocket round trip) (median of 3 blocks)",
        blockRatios(viaAgent, [direct, hops]),
        { op: "<=", value: 1.1 },
        "the floor: what an agent that cost nothing takes, reached over a socket at the same pace; each block's samples alternate with the floor's",
      ),
      { name: "agent / direct spawn (median)", value: round(a.median / d.median), unit: "ratio" },
      { name: "agent / direct spawn (p99)", value: round(a.p99 / d.p99), unit: "ratio" },
      { name: "agent command→result median", value: round(a.median), unit: "ms" },
      { name: "direct spawn median", value: round(d.median), unit: "ms" },
      {
        name: "bare WebSocket round trip to a process that only echoes (median)",
        value: round(h.median),
        unit: "ms",
        note: "the socket hop alone, at the same pace as the agent's calls",
      },
      {
        name: "(direct spawn + that round trip) / direct spawn (median)",
        value: round((d.median + h.median) / d.median),
        unit: "ratio",
        note: "an agent that cost nothing: the least anything reached over a socket can score here",
      },
      {
        name: "price of the agent's size per spawn (median)",
        value: round(big.median - d.median),
        unit: "ms",
        note: `a spawn from the lean process grown by ${ballastMb} MB of anonymous memory, as much as the agent has over it, minus the lean one`,
      },
      {
        name: "agent / (spawn from a process of its size + that round trip) (median)",
        value: round(a.median / (big.median + h.median)),
        unit: "ratio",
        note: "the agent's own work: what is left of its time without the fork's price for its size and the hop",
      },
      { name: "agent idle RSS", value: round(idleRss, 1), unit: "MB" },
      { name: "agent RSS under 5 concurrent commands (max)", value: round(loadedRss, 1), unit: "MB" },
    ],
    floor:
      "a bare WebSocket round trip to a process that only echoes (bench/lib/socket-hop.ts), sampled at the agent's pace, plus `child_process.spawn` of the same binary from a lean Node process (bench/lib/spawn-floor.mjs: no dependencies, so its fork is as cheap as a spawn gets), stdin = the parameters, until its pipes close; the agent's time runs from the command frame's send to the result frame's arrival at the stand-in hub, so it includes the loopback WebSocket hop both ways but not the hub's own parsing of the result",
    details: {
      via_agent_ms: roundSummary(a),
      direct_spawn_ms: roundSummary(d),
      direct_spawn_as_big_as_agent_ms: roundSummary(big),
      socket_hop_ms: roundSummary(h),
      ballast_mb: ballastMb,
      load_rounds: loadReps,
      idle_rss_mb: round(idleRss, 1),
      loaded_rss_mb: round(loadedRss, 1),
    },
  };
}
