import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../test/helpers/processes.js";
import { type Metric, met, type ScenarioResult, straddles } from "./result.js";

export type Machine = {
  cores: number;
  cpu: string;
  memory_gb: number;
  node: string;
  wrangler: string;
  platform: string;
};

/** One stated target, as checked in a run: every metric with a target, and slots not filled. */
export type TargetCheck = {
  scenario: string;
  metric: string;
  /** for a target judged on repeats, the median of the repetitions */
  value: number | null;
  target: NonNullable<Metric["target"]>;
  /** null: the scenario that measures it was not in this run */
  met: boolean | null;
  /** each repetition's value, in the order measured (absent for a single measurement) */
  repetitions?: number[];
  spread?: { min: number; max: number };
  /** the repetitions fall on both sides of the target */
  straddles?: boolean;
};

export type BenchReport = {
  date: string;
  quick: boolean;
  command: string;
  /** how both workers ran: wrangler's dev server without the DevTools inspector, or `wrangler dev` itself */
  runtime: string;
  duration_s: number;
  machine: Machine;
  scenarios: ScenarioResult[];
  /** scenarios that threw, by id */
  failed: { id: string; error: string }[];
  /** every target of this run (filled in by writeReport) */
  targets?: TargetCheck[];
  /** true when every target was measured and met */
  all_targets_met?: boolean;
};

export function targetChecks(r: BenchReport): TargetCheck[] {
  const checks: TargetCheck[] = r.scenarios.flatMap((s) =>
    s.metrics.flatMap((m) =>
      m.target
        ? [{ scenario: s.id, metric: m.name, value: m.value, target: m.target, met: met(m), ...repeats(m) }]
        : [],
    ),
  );
  for (const f of r.failed) {
    if (!checks.some((c) => c.scenario === f.id))
      checks.push({
        scenario: f.id,
        metric: "(scenario failed)",
        value: null,
        target: { op: "==", value: 0 },
        met: false,
      });
  }
  return checks;
}

function repeats(m: Metric): Pick<TargetCheck, "repetitions" | "spread" | "straddles"> {
  if (!m.repetitions || m.repetitions.length === 0) return {};
  return {
    repetitions: m.repetitions,
    spread: { min: Math.min(...m.repetitions), max: Math.max(...m.repetitions) },
    straddles: straddles(m),
  };
}

function checkVerdict(t: TargetCheck): string {
  if (t.met === null) return "not in this run";
  return `${t.met ? "✅ met" : "❌ missed"}${t.straddles ? " (straddles: the spread crosses the target)" : ""}`;
}

export function machine(): Machine {
  let wrangler = "unknown";
  try {
    wrangler = execFileSync(join(REPO_ROOT, "node_modules/.bin/wrangler"), ["--version"], {
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    })
      .toString()
      .trim();
  } catch {
    // reported as unknown
  }
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? "unknown",
    memory_gb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    wrangler,
    platform: `${process.platform} ${process.arch}`,
  };
}

export function writeReport(dir: string, report: BenchReport): void {
  report.targets = targetChecks(report);
  report.all_targets_met = report.targets.every((t) => t.met === true);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(dir, "latest.md"), markdown(report));
}

const UNIT: Record<Metric["unit"], string> = { ratio: "×", ms: " ms", MB: " MB", per_s: " /s", count: "", bytes: " B" };

function verdict(m: Metric): string {
  const ok = met(m);
  if (ok === null) return "";
  const spread = m.repetitions ? ` (repetitions ${m.repetitions.join(", ")}${straddles(m) ? ": straddles" : ""})` : "";
  return `${m.target!.op} ${m.target!.value}${m.unit === "ratio" ? "" : UNIT[m.unit]} ${ok ? "✅ met" : "❌ missed"}${spread}`;
}

function markdown(r: BenchReport): string {
  const m = r.machine;
  const lines = [
    `# Benchmarks — ${r.quick ? "quick run (small, for the test suite)" : "full run"}`,
    "",
    `\`${r.command}\` on ${r.date.slice(0, 10)}: ${m.cores} cores (${m.cpu}), ${m.memory_gb} GB, Node ${m.node}, wrangler ${m.wrangler}, ${m.platform}. Took ${r.duration_s} s.`,
    "",
    `Runtime, for the product's worker, the floor's and the Agents SDK peer's alike: ${r.runtime}.`,
    "",
    "Absolute times on a shared 2-core machine are noise; the ratios are the result. Each ratio divides",
    "our number by a floor measured in the same run, side by side (the floors are explained under each",
    "scenario). Medians and p99 are over the repetitions shown.",
    "",
    "| scenario | headline ratio | target | repetitions |",
    "|---|---|---|---|",
    ...r.scenarios.map((s) => {
      const head = s.metrics[0]!;
      return `| ${s.title} | ${head.name}: **${head.value}${UNIT[head.unit]}** | ${verdict(head) || "—"} | ${s.repetitions} |`;
    }),
    ...r.failed.map((f) => `| ${f.id} | **failed**: ${f.error.split("\n")[0]!.slice(0, 200)} | | 0 |`),
    "",
    `## Targets: ${(r.targets ?? []).filter((t) => t.met === true).length} of ${(r.targets ?? []).length} met`,
    "",
    "Ratio targets are judged on the median of their repetitions, each measured interleaved with its floor.",
    "",
    "| scenario | metric | value (median) | repetitions | spread | target | |",
    "|---|---|---|---|---|---|---|",
    ...(r.targets ?? []).map(
      (t) =>
        `| ${t.scenario} | ${t.metric} | ${t.value ?? "—"} | ${t.repetitions?.join(", ") ?? "—"} | ${t.spread ? `${t.spread.min}–${t.spread.max}` : "—"} | ${t.target.op} ${t.target.value} | ${checkVerdict(t)} |`,
    ),
    "",
  ];
  for (const s of r.scenarios) {
    lines.push(
      `## ${s.title}`,
      "",
      `Repetitions: ${s.repetitions}.${s.floor ? ` Floor: ${s.floor}.` : ""}`,
      "",
      "| metric | value | target |",
      "|---|---|---|",
    );
    for (const x of s.metrics)
      lines.push(`| ${x.name}${x.note ? ` (${x.note})` : ""} | ${x.value}${UNIT[x.unit]} | ${verdict(x)} |`);
    lines.push("");
  }
  return `${lines.join("\n")}\n`;
}
