import { Cron } from "croner";

/**
 * Schedule arithmetic, pure (no clock, no storage): when a schedule runs next, what an alarm does
 * with a schedule that is due (run it, or skip it while its last run is still going), and how
 * many ticks were missed while the runtime was down. Cron expressions are parsed by croner
 * (5 or 6 fields, IANA time zones).
 */

export type Timing =
  | { kind: "cron"; cron: string; timezone: string | null }
  | { kind: "every"; every_seconds: number /** the first run; later ones follow at whole intervals */; anchor: number }
  | { kind: "at"; at: number };

/** How many later runs of a cron expression are checked against the minimum interval. */
const CRON_LOOKAHEAD = 24;
/** Missed ticks are counted up to this many (a month of minutes is enough to say "many"). */
const MAX_MISSED_COUNTED = 50_000;

function cronOf(t: Extract<Timing, { kind: "cron" }>): Cron {
  // UTC as a fixed offset: the same times without a time-zone lookup per run, which made croner
  // 17 times slower (5.8 s against 0.35 s for 50,000 runs).
  return new Cron(t.cron, t.timezone === null || t.timezone === "UTC" ? { utcOffset: 0 } : { timezone: t.timezone });
}

/** Why this timing cannot be scheduled, or null. Checks the cron syntax and time zone, and the minimum interval. */
export function timingProblem(t: Timing, minSeconds: number, now: number): string | null {
  switch (t.kind) {
    case "every":
      return t.every_seconds < minSeconds
        ? `every_seconds must be at least ${minSeconds} (MIN_SCHEDULE_SECONDS)`
        : null;
    case "at":
      return t.at <= now ? "at must be in the future" : Number.isFinite(t.at) ? null : "at is not a date";
    case "cron": {
      let runs: Date[];
      try {
        runs = cronOf(t).nextRuns(CRON_LOOKAHEAD, new Date(now));
      } catch (e) {
        return `invalid cron or time zone: ${(e as Error).message}`;
      }
      if (runs.length === 0) return "the cron expression never runs";
      for (let i = 1; i < runs.length; i++) {
        const gap = (runs[i]!.getTime() - runs[i - 1]!.getTime()) / 1000;
        if (gap < minSeconds)
          return `the cron expression runs ${gap} s apart; the minimum is ${minSeconds} s (MIN_SCHEDULE_SECONDS)`;
      }
      return null;
    }
  }
}

/** The first run strictly after `after`; null when there is none (a one-off already past, a cron that ends). */
export function nextRun(t: Timing, after: number): number | null {
  return runsOf(t)(after);
}

/**
 * `nextRun` for one timing, its cron parsed once: counting a month of missed minutes asks it 50,000
 * times, and parsing the expression each time made that take seconds of an alarm's CPU.
 */
function runsOf(t: Timing): (after: number) => number | null {
  switch (t.kind) {
    case "every": {
      const step = t.every_seconds * 1000;
      return (after) => (after < t.anchor ? t.anchor : t.anchor + (Math.floor((after - t.anchor) / step) + 1) * step);
    }
    case "at":
      return (after) => (t.at > after ? t.at : null);
    case "cron": {
      const cron = cronOf(t);
      return (after) => cron.nextRun(new Date(after))?.getTime() ?? null;
    }
  }
}

/** Ticks after `tick` up to and including `now`: the runs the downtime swallowed. */
export function missedTicks(t: Timing, tick: number, now: number): number {
  if (t.kind === "at" || now <= tick) return 0;
  if (t.kind === "every") return Math.floor((now - tick) / (t.every_seconds * 1000));
  const next = runsOf(t);
  let n = 0;
  let at = next(tick);
  while (n < MAX_MISSED_COUNTED && at !== null && at <= now) {
    n++;
    at = next(at);
  }
  return n;
}

/** A schedule as the plan needs it. */
export type PlanInput = { timing: Timing; state: "active" | "paused" | "done"; next_run_at: number | null };

export type TickPlan =
  | { action: "wait" }
  /** run (or skip) the tick that was due; `missed` ticks passed as well; then wait for `next_run_at` */
  | { action: "run" | "skip"; tick: number; missed: number; next_run_at: number | null };

/**
 * What an alarm at `now` does with one schedule. A due schedule runs once for its due tick, however
 * many ticks passed since (the rest are counted as missed, never run); it is skipped instead while
 * its previous run is still going. Either way its next run is the first tick after `now`, so a
 * tick is handled once.
 */
export function planTick(s: PlanInput, now: number, previousRunning: boolean): TickPlan {
  if (s.state !== "active" || s.next_run_at === null || s.next_run_at > now) return { action: "wait" };
  const tick = s.next_run_at;
  return {
    action: previousRunning ? "skip" : "run",
    tick,
    missed: missedTicks(s.timing, tick, now),
    next_run_at: nextRun(s.timing, now),
  };
}
