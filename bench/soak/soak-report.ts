/**
 * The soak's report: `soak.json` (everything, for tools and for replays) and `soak.md` (the
 * verdict first, then each check with examples, the chaos that was done, tool outcomes, memory).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Machine } from "../lib/report.js";
import type { ClientStats } from "./api-client.js";
import type { ChaosEvent } from "./chaos.js";
import type { Check, ToolStats } from "./checks.js";
import type { MemorySample, MemoryVerdict } from "./memory-sampler.js";

export type SoakReport = {
  date: string;
  command: string;
  seed: number;
  quick: boolean;
  duration_s: number;
  machine: Machine;
  setup: Record<string, number | string>;
  verdict: { lost: number; duplicated: number; stuck: number; other_failures: number; passed: boolean };
  totals: Record<string, number>;
  checks: Check[];
  tools: ToolStats;
  latency_s: { p50: number; p95: number; max: number };
  /** from the client's first try to the message's acceptance (retries through restarts included) */
  accept_s: { p50: number; p95: number; max: number };
  chaos: { counts: Record<string, number>; events: ChaosEvent[] };
  memory: MemoryVerdict;
  memory_samples: MemorySample[];
  client: ClientStats;
  /** where the processes' logs are (kept when the run failed or with --keep) */
  logs: string | null;
};

export function verdictOf(checks: Check[]): SoakReport["verdict"] {
  const sum = (b: Check["bucket"]) => checks.filter((c) => c.bucket === b).reduce((n, c) => n + c.count, 0);
  const v = { lost: sum("lost"), duplicated: sum("duplicated"), stuck: sum("stuck"), other_failures: sum("other") };
  return { ...v, passed: v.lost + v.duplicated + v.stuck + v.other_failures === 0 };
}

export function writeSoakReport(dir: string, r: SoakReport): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "soak.json"), `${JSON.stringify(r, null, 2)}\n`);
  writeFileSync(join(dir, "soak.md"), markdown(r));
}

function markdown(r: SoakReport): string {
  const m = r.machine;
  const v = r.verdict;
  const mem = r.memory;
  const lines = [
    `# Chaos soak — ${r.quick ? "quick run (for the test suite)" : "full run"}`,
    "",
    `\`${r.command}\` on ${r.date.slice(0, 10)}: ${m.cores} cores (${m.cpu}), ${m.memory_gb} GB, Node ${m.node}, ${m.wrangler}, ${m.platform}. Took ${r.duration_s} s. Seed **${r.seed}** (replay: \`npm run soak -- --seed ${r.seed}${r.quick ? " --quick" : ""}\`).`,
    "",
    `**${v.passed ? "PASSED" : "FAILED"}: ${v.lost} lost, ${v.duplicated} duplicated, ${v.stuck} stuck**${v.other_failures ? `, ${v.other_failures} other failures` : ""}. ${memoryLine(mem)}`,
    "",
    "## Setup",
    "",
    ...Object.entries(r.setup).map(([k, x]) => `- ${k}: ${x}`),
    "",
    "## Totals",
    "",
    "| what | count |",
    "|---|---|",
    ...Object.entries(r.totals).map(([k, x]) => `| ${k} | ${x} |`),
    `| time to acceptance, retries included (p50 / p95 / max) | ${r.accept_s.p50} s / ${r.accept_s.p95} s / ${r.accept_s.max} s |`,
    `| reply time after acceptance (p50 / p95 / max) | ${r.latency_s.p50} s / ${r.latency_s.p95} s / ${r.latency_s.max} s |`,
    "",
    "## Checks (each must be 0)",
    "",
    "| check | counts as | found |",
    "|---|---|---|",
    ...r.checks.map((c) => `| ${c.what} | ${c.bucket} | ${c.count === 0 ? "0 ✅" : `**${c.count}** ❌`} |`),
    "",
  ];
  for (const c of r.checks.filter((x) => x.count > 0)) {
    lines.push(`### ${c.id}`, "", ...c.examples.map((e) => `- \`${e.replace(/`/g, "'")}\``), "");
  }
  lines.push(
    "## Tool calls",
    "",
    `${r.tools.calls} device calls in the histories, ${r.tools.runs} runs in the tools' journals (${r.tools.startsWithoutEnd} started and never finished: stopped by a cancel or a timeout). ${r.tools.lateResults} calls ended without their result (not_sent, outcome_unknown or a cancel) although the device finished them: their result came after the deadline (the agent, the bridge or the runtime was down past it) and is in the history as a late result.`,
    "",
    "| outcome in the history | calls |",
    "|---|---|",
    ...Object.entries(r.tools.outcomes)
      .sort((a, b) => b[1] - a[1])
      .map(([k, x]) => `| ${k} | ${x} |`),
    "",
    "## Chaos",
    "",
    "| fault | times |",
    "|---|---|",
    ...Object.entries(r.chaos.counts).map(([k, x]) => `| ${k} | ${x} |`),
    "",
    "<details><summary>Every fault, in order</summary>",
    "",
    "| at (s) | fault | target | down (ms) | detail |",
    "|---|---|---|---|---|",
    ...r.chaos.events.map(
      (e) =>
        `| ${e.at_s} | ${e.action} | ${e.target} | ${e.down_ms ?? ""} | ${[e.detail, e.error].filter(Boolean).join("; ")} |`,
    ),
    "",
    "</details>",
    "",
    "## Memory (RSS)",
    "",
    "| | runtime (wrangler's dev server + workerd) | agent (mean per running agent) | largest agent |",
    "|---|---|---|---|",
    `| ${mem.judged ? "after the warm-up" : "first window"} (${mem.first.from_s}–${mem.first.to_s} s) | ${mem.first.runtime_mb} MB | ${mem.first.agent_avg_mb} MB | ${mem.first.agent_max_mb} MB |`,
    `| last window (${mem.last.from_s}–${mem.last.to_s} s) | ${mem.last.runtime_mb} MB | ${mem.last.agent_avg_mb} MB | ${mem.last.agent_max_mb} MB |`,
    `| growth | ×${mem.runtime_growth} | ×${mem.agent_growth} | |`,
    "",
    "## Client",
    "",
    `${r.client.requests} requests, ${r.client.retries} retried (${r.client.networkErrors} network errors); answers by status: ${Object.entries(
      r.client.byStatus,
    )
      .map(([k, x]) => `${k}: ${x}`)
      .join(", ")}. Retried: ${
      Object.entries(r.client.retriedBy)
        .map(([k, x]) => `${k} ×${x}`)
        .join(", ") || "nothing"
    }.`,
    "",
  );
  return `${lines.join("\n")}\n`;
}

function memoryLine(mem: MemoryVerdict): string {
  const growth = `runtime ×${mem.runtime_growth}, agents ×${mem.agent_growth}`;
  if (!mem.judged)
    return `Memory not judged: the load is shorter than five ${mem.window_s} s windows (${growth}, reported only).`;
  return `Memory ${mem.flat ? "flat" : "NOT flat"} (${growth}, the last ${mem.window_s} s of the load vs the ${mem.window_s} s after the warm-up; flat = at most ×${mem.flat_within}).`;
}
