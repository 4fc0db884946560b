/**
 * The benchmark must not rot: run `npm run bench -- --quick` as a user would (every scenario,
 * small) and check it finished and wrote a well-formed report. No timing assertions — times on
 * shared machines are noise; the benchmark reports them, the suite only checks it still runs.
 */
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startChild } from "../helpers/processes.js";
import { tempDir } from "../helpers/temp-dir.js";

const SCENARIOS = [
  "step_overhead",
  "parallel_calls",
  "fleet_load",
  "device_execution",
  "resume",
  "large_results",
  "device_footprint",
  "peer_agents_sdk",
  "cost_chat_message",
  "cost_per_round",
  "long_conversation",
  "conversation_memory",
];

describe("npm run bench -- --quick", () => {
  it("runs every scenario and writes latest.json with repetitions and no lost or duplicated calls", async () => {
    const out = tempDir("edgeloop-bench-");
    // Its own process group, ended whole (with the workers it started) if it overruns. It runs
    // about 270 s beside the rest of the suite since the fleet has a durable floor too: the
    // bound leaves room for a busy machine, and the file starts first, off the suite's tail.
    const run = startChild("npx", ["tsx", "bench/run.ts", "--quick", "--out", out], {
      name: "bench",
      env: { WRANGLER_SEND_METRICS: "false" },
    });
    const overrun = setTimeout(() => void run.stop(), 480_000);
    const [code] = (await once(run.proc, "exit")) as [number | null];
    clearTimeout(overrun);
    expect(code, run.output()).toBe(0);

    const report = JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as {
      quick: boolean;
      targets: {
        scenario: string;
        metric: string;
        value: number | null;
        met: boolean | null;
        repetitions?: number[];
        spread?: { min: number; max: number };
        straddles?: boolean;
      }[];
      all_targets_met: boolean;
      machine: { cores: number; node: string };
      failed: unknown[];
      scenarios: {
        id: string;
        repetitions: number;
        metrics: { name: string; value: number; target?: unknown }[];
        lost?: number;
        duplicated?: number;
      }[];
    };
    expect(report.quick).toBe(true);
    expect(report.machine.cores).toBeGreaterThan(0);
    expect(report.failed).toEqual([]);
    expect(report.scenarios.map((s) => s.id).sort()).toEqual([...SCENARIOS].sort());
    for (const s of report.scenarios) {
      expect(s.repetitions, s.id).toBeGreaterThan(0);
      expect(s.metrics.length, s.id).toBeGreaterThan(0);
      for (const m of s.metrics) expect(typeof m.value, `${s.id}: ${m.name}`).toBe("number");
      expect(s.lost ?? 0, `${s.id} lost`).toBe(0);
      expect(s.duplicated ?? 0, `${s.id} duplicated`).toBe(0);
    }
    // Every target of every scenario is listed with its verdict.
    for (const s of report.scenarios)
      for (const m of s.metrics.filter((x) => x.target))
        expect(
          report.targets.find((t) => t.scenario === s.id && t.metric === m.name)?.met,
          `${s.id}: ${m.name}`,
        ).toBeTypeOf("boolean");
    // Every latency ratio target is judged on the median of at least three repetitions, and the
    // report shows them with their spread and whether they straddle the target. The fleet has two:
    // CPU per tool call and tool calls per second, both against the durable floor.
    const repeated = report.targets.filter((t) => t.repetitions !== undefined);
    expect(repeated.map((t) => t.scenario).sort()).toEqual(
      ["device_execution", "fleet_load", "fleet_load", "parallel_calls", "peer_agents_sdk", "step_overhead"].sort(),
    );
    for (const t of repeated) {
      const reps = t.repetitions!;
      expect(reps.length, t.metric).toBeGreaterThanOrEqual(3);
      const sorted = [...reps].sort((a, b) => a - b);
      expect(t.value, t.metric).toBeCloseTo(sorted[Math.floor(sorted.length / 2)]!, 1);
      expect(t.spread, t.metric).toEqual({ min: sorted[0], max: sorted[sorted.length - 1] });
      expect(typeof t.straddles, t.metric).toBe("boolean");
    }
    // No object that exists once per deployment is asked per message or per tool round.
    const singles = report.targets.find((t) => t.metric.startsWith("requests to per-deployment objects per message"));
    expect(singles?.met, "per-deployment objects on the message path").toBe(true);
    // The fleet is judged against the durable floor, not in milliseconds.
    for (const judged of ["CPU per tool call / the durable floor's", "tool calls per second / the durable floor's"])
      expect(
        report.targets.some((t) => t.scenario === "fleet_load" && t.metric.includes(judged)),
        judged,
      ).toBe(true);
    expect(report.targets.some((t) => t.scenario === "fleet_load" && t.metric.startsWith("round trip median"))).toBe(
      false,
    );
    // Context growth is the long conversation's: its turn-ratio target is there with the others.
    expect(
      report.targets.some((t) => t.scenario === "long_conversation" && t.metric.startsWith("input tokens, turn")),
    ).toBe(true);
    // A conversation's memory is measured, with its flatness target.
    expect(
      report.targets.some((t) => t.scenario === "conversation_memory" && t.metric.startsWith("heap at turn")),
    ).toBe(true);
    expect(typeof report.all_targets_met).toBe("boolean");
    const md = readFileSync(join(out, "latest.md"), "utf8");
    expect(md).toContain("| scenario |");
    expect(md).toContain("## Targets:");
    expect(md).toContain("| repetitions | spread |");
  }, 500_000);
});
