import type { ScheduleRequest, ScheduleView } from "@edgeloop/protocol/schedules";

/**
 * What others may ask of the scheduler (one object per deployment): the worker's `/v1/schedules`
 * routes. The SCHEDULER namespace is typed by it. `owner`, when given, is a scoped principal's id:
 * it sees and changes only the schedules it made (any other is answered as missing).
 */
export interface SchedulerRpc {
  /** Validates the timing (cron syntax, time zone, MIN_SCHEDULE_SECONDS) and arms the alarm. */
  create(
    input: NewSchedule,
  ): Promise<{ ok: true; schedule: ScheduleView } | { ok: false; error: string; field: string }>;
  list(owner?: string): Promise<ScheduleView[]>;
  get(scheduleId: string, owner?: string): Promise<ScheduleView | null>;
  /** A run already posted goes on; no later tick runs. */
  remove(scheduleId: string, owner?: string): Promise<boolean>;
  /** Paused schedules do not run; resumed, they run from their next tick after now (missed ticks are not made up). */
  setPaused(scheduleId: string, paused: boolean, owner?: string): Promise<ScheduleView | null>;
}

/**
 * A schedule as the route hands it over: the request, and who made it (a principal's id, see
 * runtime/access.ts): runs are posted as that principal, checked again at every run.
 */
export type NewSchedule = ScheduleRequest & { sender: string };

/** One run to post: the schedule's message for one tick. */
export type ScheduledRun = {
  schedule_id: string;
  tick: number;
  sender: string;
  text: string;
  agent_id: string | null;
  agent_ids: string[] | null;
  pool: string | null;
  mode: "single" | "fleet" | null;
  tools: string[] | null;
  conversation_id: string | null;
};

/** How posting a run went: the front door's answer. */
export type Delivery = { ok: true; conversation_id: string; message_id: string } | { ok: false; error: string };
