/**
 * The chaos soak must not rot, and must keep finding nothing: run `npm run soak -- --quick` as a
 * user would (20 agents on WebSocket and MQTT, conversations with tools, approvals, questions and
 * schedules, while every part is killed and restarted and connections are cut) and check its
 * report: every kind of fault happened, work was done, and nothing was lost, duplicated or stuck.
 * The seed is random per run and printed; a failure names it, so the run can be replayed.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SoakReport } from "../../bench/soak/soak-report.js";
import { REPO_ROOT } from "../helpers/processes.js";
import { tempDir } from "../helpers/temp-dir.js";

describe("npm run soak -- --quick", () => {
  it("kills every part under load and loses, duplicates and strands nothing", () => {
    const out = tempDir("edgeloop-soak-");
    const run = spawnSync("npm", ["run", "soak", "--", "--quick", "--out", out], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      timeout: 280_000,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
    const output = `${run.stdout}\n${run.stderr}`;
    const report = JSON.parse(readFileSync(join(out, "soak.json"), "utf8")) as SoakReport;
    const failed = report.checks.filter((c) => c.count > 0);
    expect(failed, output).toEqual([]);
    expect(report.verdict, output).toMatchObject({ lost: 0, duplicated: 0, stuck: 0, passed: true });
    expect(run.status, output).toBe(0);

    expect(report.quick).toBe(true);
    for (const [fault, times] of Object.entries(report.chaos.counts)) expect(times, fault).toBeGreaterThan(0);
    expect(report.totals.conversations).toBeGreaterThanOrEqual(100);
    expect(report.totals["messages accepted"]).toBeGreaterThan(0);
    expect(report.totals["approvals answered (denied)"]).toBeGreaterThan(0);
    expect(report.totals["questions answered"]).toBeGreaterThan(0);
    expect(report.totals["schedule runs posted"]).toBeGreaterThan(0);
    expect(report.tools.runs).toBeGreaterThan(0);
    expect(readFileSync(join(out, "soak.md"), "utf8")).toContain("0 lost, 0 duplicated, 0 stuck");
  }, 300_000);
});
