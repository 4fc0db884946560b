import { describe, expect, it } from "vitest";
import {
  missedTicks,
  nextRun,
  planTick,
  type Timing,
  timingProblem,
} from "../../../durable-objects/scheduler/schedule-times.js";

const T0 = Date.parse("2026-03-02T07:59:30Z"); // a Monday
const every = (s: number, anchor = T0 + s * 1000): Timing => ({ kind: "every", every_seconds: s, anchor });
const cron = (c: string, timezone: string | null = null): Timing => ({ kind: "cron", cron: c, timezone });

describe("schedule arithmetic: validation", () => {
  it("refuses intervals under the minimum, bad cron, bad zones, crons that never run, and a past `at`", () => {
    expect(timingProblem(every(30), 60, T0)).toMatch(/at least 60/);
    expect(timingProblem(every(60), 60, T0)).toBeNull();
    expect(timingProblem(cron("61 * * * *"), 60, T0)).toMatch(/invalid cron/);
    expect(timingProblem(cron("0 8 * * *", "Mars/Olympus"), 60, T0)).toMatch(/time zone/);
    expect(timingProblem(cron("*/20 * * * * *"), 60, T0)).toMatch(/20 s apart/);
    expect(timingProblem(cron("*/20 * * * * *"), 10, T0)).toBeNull();
    expect(timingProblem(cron("0 0 30 2 *"), 60, T0)).toMatch(/never runs/);
    expect(timingProblem({ kind: "at", at: T0 - 1 }, 60, T0)).toMatch(/future/);
    expect(timingProblem({ kind: "at", at: T0 + 1000 }, 60, T0)).toBeNull();
  });
});

describe("schedule arithmetic: next run", () => {
  it("cron: the next matching minute, in the schedule's time zone", () => {
    expect(new Date(nextRun(cron("0 8 * * *"), T0)!).toISOString()).toBe("2026-03-02T08:00:00.000Z");
    // 08:00 in Paris is 07:00 UTC in winter: already past at 07:59:30 UTC, so tomorrow.
    expect(new Date(nextRun(cron("0 8 * * *", "Europe/Paris"), T0)!).toISOString()).toBe("2026-03-03T07:00:00.000Z");
    expect(new Date(nextRun(cron("0 9 * * 1"), T0)!).toISOString()).toBe("2026-03-02T09:00:00.000Z");
  });

  it("every: whole intervals from the anchor, strictly after the given time", () => {
    const t = every(60);
    expect(nextRun(t, T0)).toBe(T0 + 60_000);
    expect(nextRun(t, T0 + 60_000)).toBe(T0 + 120_000);
    expect(nextRun(t, T0 + 60_001)).toBe(T0 + 120_000);
    expect(nextRun(t, T0 + 10 * 60_000 + 5)).toBe(T0 + 11 * 60_000);
  });

  it("at: once, then never", () => {
    const t: Timing = { kind: "at", at: T0 + 5000 };
    expect(nextRun(t, T0)).toBe(T0 + 5000);
    expect(nextRun(t, T0 + 5000)).toBeNull();
  });
});

describe("schedule arithmetic: missed runs and overlap", () => {
  it("a schedule not yet due waits; a paused or finished one never runs", () => {
    const s = { timing: every(60), state: "active" as const, next_run_at: T0 + 60_000 };
    expect(planTick(s, T0 + 59_999, false)).toEqual({ action: "wait" });
    expect(planTick({ ...s, state: "paused" }, T0 + 120_000, false)).toEqual({ action: "wait" });
    expect(planTick({ ...s, state: "done", next_run_at: null }, T0 + 120_000, false)).toEqual({ action: "wait" });
  });

  it("on time: runs the tick once and moves to the next one", () => {
    const s = { timing: every(60), state: "active" as const, next_run_at: T0 + 60_000 };
    expect(planTick(s, T0 + 60_000, false)).toEqual({
      action: "run",
      tick: T0 + 60_000,
      missed: 0,
      next_run_at: T0 + 120_000,
    });
  });

  it("after downtime: one run for the due tick, the others counted as missed, the next tick after now", () => {
    const s = { timing: every(60), state: "active" as const, next_run_at: T0 + 60_000 };
    const now = T0 + 60_000 * 11 + 500; // ten more ticks passed while down
    expect(planTick(s, now, false)).toEqual({
      action: "run",
      tick: T0 + 60_000,
      missed: 10,
      next_run_at: T0 + 12 * 60_000,
    });
    const c = {
      timing: cron("*/5 * * * *"),
      state: "active" as const,
      next_run_at: Date.parse("2026-03-02T08:00:00Z"),
    };
    const plan = planTick(c, Date.parse("2026-03-02T09:02:00Z"), false);
    expect(plan).toMatchObject({ action: "run", missed: 12, next_run_at: Date.parse("2026-03-02T09:05:00Z") });
    expect(missedTicks({ kind: "at", at: T0 }, T0, T0 + 1e9)).toBe(0);
  });

  it("while the previous run is still going the tick is skipped, and the schedule still moves on", () => {
    const s = { timing: every(60), state: "active" as const, next_run_at: T0 + 60_000 };
    expect(planTick(s, T0 + 60_010, true)).toEqual({
      action: "skip",
      tick: T0 + 60_000,
      missed: 0,
      next_run_at: T0 + 120_000,
    });
  });
});
