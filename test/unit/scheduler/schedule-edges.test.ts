import { describe, expect, it } from "vitest";
import {
  missedTicks,
  nextRun,
  planTick,
  type Timing,
  timingProblem,
} from "../../../durable-objects/scheduler/schedule-times.js";

/** The bounds of schedule times that issue 39's mutation run found unpinned. */
const MIN = 60_000;
const everyMinute: Timing = { kind: "cron", cron: "* * * * *", timezone: null };

describe("missed ticks", () => {
  it("are none for a one-off, and none up to the tick itself", () => {
    expect(missedTicks({ kind: "at", at: 0 }, 0, 10 * MIN)).toBe(0);
    expect(missedTicks(everyMinute, 5 * MIN, 5 * MIN)).toBe(0);
    expect(missedTicks({ kind: "every", every_seconds: 60, anchor: 0 }, 5 * MIN, 5 * MIN)).toBe(0);
  });

  it("are none for a one-off due later, or a tick not reached yet", () => {
    expect(missedTicks({ kind: "at", at: 5 * MIN }, 0, 10 * MIN)).toBe(0);
    expect(missedTicks({ kind: "every", every_seconds: 60, anchor: 0 }, 5 * MIN, 4 * MIN)).toBe(0);
  });

  it("count whole intervals of an `every` schedule", () => {
    const every: Timing = { kind: "every", every_seconds: 60, anchor: 0 };
    expect(missedTicks(every, 0, 3 * MIN)).toBe(3);
    expect(missedTicks(every, 0, 3 * MIN - 1)).toBe(2);
  });

  it("count a cron's runs after the tick up to and including now", () => {
    expect(missedTicks(everyMinute, 0, 5 * MIN)).toBe(5);
    expect(missedTicks(everyMinute, 0, 5 * MIN - 1)).toBe(4);
  });

  it("stop at a cron's last run", () => {
    const only2020: Timing = { kind: "cron", cron: "0 0 0 1 1 * 2020", timezone: null };
    expect(missedTicks(only2020, Date.UTC(2019, 0, 1), Date.UTC(2021, 0, 1))).toBe(1);
    expect(nextRun(only2020, Date.UTC(2021, 0, 1))).toBeNull();
  });

  it("are counted up to 50,000, enough to say many", () => {
    expect(missedTicks(everyMinute, 0, 100 * 24 * 60 * MIN)).toBe(50_000);
  });

  it("of an `every` schedule are counted whole, past the cron's bound", () => {
    const every: Timing = { kind: "every", every_seconds: 60, anchor: 0 };
    expect(missedTicks(every, 0, 100 * 24 * 60 * MIN)).toBe(144_000);
  });
});

describe("a cron without a time zone", () => {
  // Workers run in UTC, a developer's Node may not: a schedule without a zone is UTC either way.
  it.each([null, "UTC"])("runs on UTC's clock whatever the process's zone (%s)", (timezone) => {
    const before = process.env.TZ;
    process.env.TZ = "America/New_York";
    try {
      const nineUtc: Timing = { kind: "cron", cron: "0 9 * * *", timezone };
      expect(nextRun(nineUtc, Date.UTC(2026, 0, 1))).toBe(Date.UTC(2026, 0, 1, 9));
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
  });
});

describe("timings", () => {
  it("refuse a one-off at this very moment, and one that is not a date", () => {
    expect(timingProblem({ kind: "at", at: 1_000 }, 60, 1_000)).toBe("at must be in the future");
    expect(timingProblem({ kind: "at", at: 1_001 }, 60, 1_000)).toBeNull();
    expect(timingProblem({ kind: "at", at: Number.NaN }, 60, 1_000)).toBe("at is not a date");
  });

  it("take a cron whose runs are exactly the minimum apart", () => {
    expect(timingProblem({ kind: "cron", cron: "*/5 * * * *", timezone: null }, 300, 0)).toBeNull();
    expect(timingProblem({ kind: "cron", cron: "*/5 * * * *", timezone: null }, 301, 0)).toBe(
      "the cron expression runs 300 s apart; the minimum is 301 s (MIN_SCHEDULE_SECONDS)",
    );
  });

  it("start an `every` schedule at its anchor, however long before it is asked", () => {
    const every: Timing = { kind: "every", every_seconds: 60, anchor: 10 * MIN };
    expect(nextRun(every, 0)).toBe(10 * MIN);
    expect(nextRun(every, 10 * MIN - 1)).toBe(10 * MIN);
    expect(nextRun(every, 10 * MIN)).toBe(11 * MIN);
  });
});

describe("an alarm's plan", () => {
  const timing: Timing = { kind: "every", every_seconds: 60, anchor: 0 };
  it("waits for a schedule paused, done, unscheduled or not yet due, and runs one due now", () => {
    expect(planTick({ timing, state: "paused", next_run_at: 0 }, MIN, false)).toEqual({ action: "wait" });
    expect(planTick({ timing, state: "done", next_run_at: 0 }, MIN, false)).toEqual({ action: "wait" });
    expect(planTick({ timing, state: "active", next_run_at: null }, MIN, false)).toEqual({ action: "wait" });
    expect(planTick({ timing, state: "active", next_run_at: MIN + 1 }, MIN, false)).toEqual({ action: "wait" });
    expect(planTick({ timing, state: "active", next_run_at: MIN }, MIN, false)).toEqual({
      action: "run",
      tick: MIN,
      missed: 0,
      next_run_at: 2 * MIN,
    });
  });
});
