/**
 * `npm run soak [-- --minutes N] [-- --quick] [-- --seed S] [-- --out DIR] [-- --keep] [-- --help]`: the chaos
 * soak. 20 device agents (WebSocket, and MQTT through the bridge and mosquitto) on the product's
 * runtime; conversations with rounds of tool calls, approvals and questions answered by a script,
 * and schedules, for N minutes (default 10; `--quick` ≈ 2 minutes in all) while a chaos driver
 * kills and restarts every part at seeded random times and cuts device connections. Then a drain
 * period, and the checks: nothing lost, nothing duplicated, nothing stuck, memory flat. Writes
 * DIR/soak.json and DIR/soak.md (bench/results, or bench/results/quick for --quick); exits 1 if
 * any check failed. The seed is printed first: the same seed replays the same choices and timing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startScriptedLlm } from "../scripted-llm/server.js";
import { REPO_ROOT } from "../test/helpers/processes.js";
import { flagsOrExit } from "./lib/flags.js";
import { machine } from "./lib/report.js";
import { parseSoakFlags } from "./lib/soak-flags.js";
import { SoakApi } from "./soak/api-client.js";
import { BROKER_AUTOSAVE_SECONDS } from "./soak/broker.js";
import { CHAOS_ACTIONS, ChaosDriver } from "./soak/chaos.js";
import { runChecks } from "./soak/checks.js";
import { collectAudits } from "./soak/collect.js";
import { startFleet } from "./soak/fleet.js";
import { readJournals } from "./soak/journal.js";
import { MEMORY_FLAT_WITHIN, MemorySampler, memoryCheck, memoryVerdict } from "./soak/memory-sampler.js";
import { SOAK_RULES } from "./soak/model-script.js";
import { seededRandom } from "./soak/random.js";
import { createSchedules, pauseSchedules, type ScheduleView, scheduledConversations } from "./soak/schedules.js";
import { type SoakReport, verdictOf, writeSoakReport } from "./soak/soak-report.js";
import { Workload } from "./soak/workload.js";

const parsed = flagsOrExit(parseSoakFlags(process.argv.slice(2)), "soak");
const { quick, keep, minutes, noChaos } = parsed;
/** a random seed unless one was given: printed first, so any run can be replayed */
const seed = parsed.seed ?? Math.floor(Math.random() * 2 ** 31);
const outDir = parsed.out ?? join(REPO_ROOT, quick ? "bench/results/quick" : "bench/results");

/** Sizes: the quick run is what the test suite runs, so it stays near two minutes on two cores. */
const plan = {
  wsAgents: 13,
  mqttAgents: 7,
  loadMs: minutes * 60_000,
  concurrency: quick ? 30 : 30,
  messagesPerConversation: (quick ? [1, 2] : [1, 4]) as [number, number],
  /** the load goes on (up to twice its time) until this many conversations were started */
  minConversations: 120,
  schedules: quick ? 2 : 3,
  scheduleEverySeconds: quick ? 10 : 20,
  chaosMeanGapMs: quick ? 3_000 : 4_000,
  drainMs: quick ? 90_000 : 240_000,
  /** how long a client keeps retrying one request through restarts */
  clientRetryMs: quick ? 120_000 : 300_000,
  memoryWindowS: quick ? 20 : 60,
};

const say = (text: string) => process.stderr.write(`soak: ${text}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10;
}

async function main(): Promise<number> {
  const started = Date.now();
  const flags = [quick ? "--quick" : `--minutes ${minutes}`, `--seed ${seed}`, ...(noChaos ? ["--no-chaos"] : [])].join(
    " ",
  );
  say(`seed ${seed} (replay with: npm run soak -- ${flags})`);
  const random = seededRandom(seed);
  const runTag = seed.toString(36);
  const dir = mkdtempSync(join(tmpdir(), `edgeloop-soak-${runTag}-`));
  const llm = await startScriptedLlm({ port: 0, rules: SOAK_RULES });
  say(`starting the runtime, the broker, the bridge and ${plan.wsAgents + plan.mqttAgents} agents in ${dir}`);
  const fleet = await startFleet({ dir, llmUrl: llm.url, wsAgents: plan.wsAgents, mqttAgents: plan.mqttAgents });
  const stopAll = () => void fleet.stop().finally(() => process.exit(130));
  process.once("SIGINT", stopAll);
  process.once("SIGTERM", stopAll);
  const agentIds = fleet.agents.map((a) => a.id);
  const api = new SoakApi(fleet.url, plan.clientRetryMs);
  const memory = new MemorySampler(fleet);
  memory.start(5_000);
  const forgetRequests = setInterval(() => llm.reset(), 30_000);
  let passed = false;
  try {
    const schedules = await createSchedules(
      api,
      random.fork("schedules").shuffle(agentIds).slice(0, plan.schedules),
      plan.scheduleEverySeconds,
    );
    const workload = new Workload(api, random.fork("workload"), {
      runTag,
      agents: agentIds,
      concurrency: plan.concurrency,
      messagesPerConversation: plan.messagesPerConversation,
    });
    const loadFromS = Math.round((Date.now() - started) / 1000);
    const chaos = new ChaosDriver(fleet, random.fork("chaos"), {
      meanGapMs: plan.chaosMeanGapMs,
      postsInFlight: () => api.inFlight.get("POST messages") ?? 0,
    });
    say(`load and chaos for ${plan.loadMs / 1000} s`);
    workload.start();
    const progress = setInterval(() => {
      const msgs = workload.conversations.flatMap((c) => c.messages);
      say(
        `${Math.round((Date.now() - started) / 1000)} s: ${workload.conversations.length} conversations, ${msgs.filter((m) => m.accepted_at).length} messages accepted, ${msgs.filter((m) => m.ended_at).length} replied; ${chaos.events.length} faults`,
      );
    }, 15_000);
    // The load lasts its time, and (up to twice that) until enough conversations were started:
    // a long runtime outage early in a quick run must not leave it with too little work checked.
    const loadStart = Date.now();
    const going = () => {
      const elapsed = Date.now() - loadStart;
      return (
        elapsed < plan.loadMs || (workload.conversations.length < plan.minConversations && elapsed < 2 * plan.loadMs)
      );
    };
    if (noChaos) while (going()) await sleep(500);
    else await chaos.run(going);
    workload.stopSending();
    await pauseSchedules(api, schedules);
    const loadToS = Math.round((Date.now() - started) / 1000);
    say(`chaos over (${chaos.events.length} faults); draining for up to ${plan.drainMs / 1000} s`);
    const drained = await workload.drain(Date.now() + plan.drainMs);
    clearInterval(progress);
    memory.stop();
    say(
      drained ? "every conversation finished; checking" : "drain period over with conversations unfinished; checking",
    );
    // A schedule paused while its last run was being posted: that run stands, so let it finish too.
    await sleep(2_000);
    const views: { rec: (typeof schedules)[number]; view: ScheduleView | null }[] = [];
    for (const rec of schedules)
      views.push({ rec, view: await api.get<ScheduleView>(`/v1/schedules/${rec.schedule_id}`) });
    const known = new Set(workload.conversations.map((c) => c.conversation_id));
    const scheduled = await scheduledConversations(api, schedules, known);
    const audits = await collectAudits(api, workload.conversations, scheduled);
    const journals = readJournals(fleet.agents);
    const { checks, tools } = runChecks(audits, journals, views);
    const memoryFlat = memoryVerdict(memory.samples, loadFromS, loadToS, plan.memoryWindowS, MEMORY_FLAT_WITHIN);
    checks.push(memoryCheck(memoryFlat));
    const verdict = verdictOf(checks);
    const msgs = workload.conversations.flatMap((c) => c.messages);
    const replyTimes = msgs.flatMap((m) => (m.accepted_at && m.ended_at ? [(m.ended_at - m.accepted_at) / 1000] : []));
    const acceptTimes = msgs.flatMap((m) =>
      m.accepted_at && m.posted_at ? [(m.accepted_at - m.posted_at) / 1000] : [],
    );
    const counts = Object.fromEntries(CHAOS_ACTIONS.map((a) => [a, chaos.events.filter((e) => e.action === a).length]));
    const report: SoakReport = {
      date: new Date().toISOString(),
      command: `npm run soak -- ${flags}`,
      seed,
      quick,
      duration_s: Math.round((Date.now() - started) / 1000),
      machine: machine(),
      setup: {
        "device agents on WebSocket (through the cutting proxy)": plan.wsAgents,
        "device agents on MQTT (mosquitto + edgeloop-bridge)": plan.mqttAgents,
        "load and chaos (s)": plan.loadMs / 1000,
        "drain period (s)": plan.drainMs / 1000,
        "conversations at once": plan.concurrency,
        "messages per conversation": plan.messagesPerConversation.join("–"),
        "mean time between faults (s)": plan.chaosMeanGapMs / 1000,
        "schedules (every_seconds)": `${plan.schedules} (${plan.scheduleEverySeconds})`,
        "broker autosave (s)": BROKER_AUTOSAVE_SECONDS,
        "runtime starts": fleet.runtimeStarts(),
      },
      verdict,
      totals: {
        conversations: workload.conversations.length,
        "conversations started by schedules": scheduled.length,
        "messages sent": msgs.filter((m) => m.accepted_at || m.refused).length,
        "messages accepted": msgs.filter((m) => m.accepted_at).length,
        "approvals answered (denied)": msgs.flatMap((m) => m.decisions).length,
        denied: msgs.flatMap((m) => m.decisions).filter((d) => !d.approve).length,
        "questions answered": msgs.flatMap((m) => m.answers).length,
        "schedule runs posted": views.reduce((n, v) => n + (v.view?.runs ?? 0), 0),
        "device tool calls": tools.calls,
        "tool runs journaled": tools.runs,
        "event stream reconnects": workload.conversations.reduce((n, c) => n + (c.follower?.connects ?? 0), 0),
        "conversation drivers that failed": workload.conversations.filter((c) => c.error).length,
      },
      checks,
      tools,
      latency_s: { p50: percentile(replyTimes, 50), p95: percentile(replyTimes, 95), max: percentile(replyTimes, 100) },
      accept_s: {
        p50: percentile(acceptTimes, 50),
        p95: percentile(acceptTimes, 95),
        max: percentile(acceptTimes, 100),
      },
      chaos: { counts, events: chaos.events },
      memory: memoryFlat,
      memory_samples: memory.samples,
      client: api.stats,
      logs: null,
    };
    for (const c of workload.conversations.filter((x) => x.error).slice(0, 3)) say(`driver error: ${c.error}`);
    passed = verdict.passed;
    report.logs = passed && !keep ? null : join(dir, "logs");
    writeSoakReport(outDir, report);
    say(
      `${passed ? "PASSED" : "FAILED"}: ${verdict.lost} lost, ${verdict.duplicated} duplicated, ${verdict.stuck} stuck, ${verdict.other_failures} other; wrote ${join(outDir, "soak.json")} and soak.md`,
    );
    for (const c of checks.filter((x) => x.count > 0))
      say(`  ${c.id}: ${c.count} — ${c.examples.slice(0, 3).join(" | ")}`);
  } finally {
    clearInterval(forgetRequests);
    memory.stop();
    await fleet.stop();
    await llm.close();
    if (passed && !keep) rmSync(dir, { recursive: true, force: true });
    else say(`logs and state kept in ${dir}`);
  }
  return passed ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    say(`failed: ${(e as Error).stack ?? String(e)}`);
    process.exit(2);
  },
);
