import type { ScheduleRun, ScheduleView } from "@edgeloop/protocol/schedules";
import type { Timing } from "./schedule-times.js";
import type { NewSchedule, ScheduledRun } from "./scheduler-rpc.js";

/**
 * A schedule as the scheduler stores it (times in unix ms), and as the API shows it (ISO dates).
 */
export type StoredSchedule = {
  schedule_id: string;
  sender: string;
  agent_id: string | null;
  /** a fleet's devices */
  agent_ids: string[] | null;
  pool: string | null;
  /** with a pool: one device, or each of the pool's */
  mode: "single" | "fleet" | null;
  tools: string[] | null;
  text: string;
  timing: Timing;
  conversation_id: string | null;
  state: "active" | "paused" | "done";
  next_run_at: number | null;
  created_at: number;
  runs: number;
  skipped_overlap: number;
  missed: number;
  failures: number;
  /** the latest tick handled, whatever came of it */
  last_run: StoredRun | null;
  /** the latest run posted: while its message is still going, ticks are skipped */
  last_posted: { conversation_id: string; message_id: string } | null;
};

/** The message of one tick of a schedule. */
export function runOf(s: StoredSchedule, tick: number): ScheduledRun {
  const { schedule_id, sender, text, agent_id, agent_ids, pool, mode, tools, conversation_id } = s;
  return { schedule_id, tick, sender, text, agent_id, agent_ids, pool, mode, tools, conversation_id };
}

export type StoredRun = Omit<ScheduleRun, "tick" | "at"> & { tick: number; at: number };

/** The timing a request asks for; an `every` schedule's first run is one interval after `now`. */
export function timingOf(input: NewSchedule, now: number): Timing {
  if (input.cron !== undefined) return { kind: "cron", cron: input.cron, timezone: input.timezone ?? null };
  if (input.every_seconds !== undefined)
    return { kind: "every", every_seconds: input.every_seconds, anchor: now + input.every_seconds * 1000 };
  const at = typeof input.at === "number" ? input.at : Date.parse(input.at!);
  return { kind: "at", at };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function scheduleView(s: StoredSchedule): ScheduleView {
  const t = s.timing;
  return {
    schedule_id: s.schedule_id,
    agent_id: s.agent_id,
    agent_ids: s.agent_ids,
    pool: s.pool,
    mode: s.mode,
    text: s.text,
    cron: t.kind === "cron" ? t.cron : null,
    timezone: t.kind === "cron" ? (t.timezone ?? "UTC") : null,
    every_seconds: t.kind === "every" ? t.every_seconds : null,
    at: t.kind === "at" ? iso(t.at) : null,
    conversation_id: s.conversation_id,
    state: s.state,
    next_run_at: iso(s.next_run_at),
    created_at: iso(s.created_at)!,
    runs: s.runs,
    skipped_overlap: s.skipped_overlap,
    missed: s.missed,
    failures: s.failures,
    last_run: s.last_run ? { ...s.last_run, tick: iso(s.last_run.tick)!, at: iso(s.last_run.at)! } : null,
  };
}
