import { z } from "zod";
import { MAX_MESSAGE_TEXT } from "./http-bodies.js";
import { Identifier } from "./ids.js";
import { MessageTargetFields, refineTarget } from "./message-target.js";

/**
 * Schedules: a message posted on a timer, through the same front door as `POST /v1/messages`.
 * Shared by the API (`/v1/schedules`), the scheduler's Durable Object and the CLI.
 */

/**
 * `POST /v1/schedules`. A target as a message names it (`agent_id`, `agent_ids`, or `pool` with an
 * optional `mode`: protocol/message-target.ts), and exactly one of `cron` (5 or 6
 * fields, in `timezone`, UTC by default), `every_seconds`, or `at` (one run, an ISO date or unix
 * ms). With `conversation_id` every run goes to that conversation; without, each run starts a new one.
 */
export const ScheduleRequest = z
  .object({
    ...MessageTargetFields,
    text: z.string().min(1, "must not be empty").max(MAX_MESSAGE_TEXT),
    cron: z.string().min(1).max(200).optional().describe("5 or 6 fields, in `timezone` (UTC by default)"),
    every_seconds: z
      .number()
      .int()
      .min(1)
      .max(366 * 86_400)
      .optional()
      .describe("an interval; at least MIN_SCHEDULE_SECONDS"),
    at: z
      .union([z.number().int().positive(), z.string().datetime({ offset: true })])
      .optional()
      .describe("one run: an ISO date or unix milliseconds"),
    conversation_id: Identifier.optional().describe("every run goes to this conversation; unset: each starts one"),
    timezone: z.string().min(1).max(64).optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    refineTarget(s, ctx);
    const timings = [s.cron, s.every_seconds, s.at].filter((t) => t !== undefined).length;
    if (timings !== 1)
      ctx.addIssue({ code: "custom", path: ["cron"], message: "give exactly one of cron, every_seconds or at" });
    if (s.timezone !== undefined && s.cron === undefined)
      ctx.addIssue({ code: "custom", path: ["timezone"], message: "timezone applies to cron only" });
  })
  .describe("exactly one of `agent_id`, `agent_ids` or `pool`, and exactly one of `cron`, `every_seconds` or `at`");
export type ScheduleRequest = z.infer<typeof ScheduleRequest>;

/** The last run of a schedule, as the API shows it. */
export const ScheduleRun = z.object({
  /** the time the run was due (ISO) */
  tick: z.string(),
  /** when it was posted (ISO) */
  at: z.string(),
  outcome: z.enum(["posted", "skipped_overlap", "refused", "failed"]),
  conversation_id: z.string().nullable(),
  message_id: z.string().nullable(),
  error: z.string().nullable(),
});
export type ScheduleRun = z.infer<typeof ScheduleRun>;

/** A schedule as `GET /v1/schedules[/:id]` shows it; times are ISO dates. */
export const ScheduleView = z.object({
  schedule_id: z.string(),
  agent_id: z.string().nullable(),
  /** a fleet schedule's devices (docs/fleet.md) */
  agent_ids: z.array(z.string()).nullable(),
  pool: z.string().nullable(),
  /** with a pool: `fleet` uses all of its devices; null: one is picked */
  mode: z.enum(["single", "fleet"]).nullable(),
  text: z.string(),
  cron: z.string().nullable(),
  timezone: z.string().nullable(),
  every_seconds: z.number().nullable(),
  at: z.string().nullable(),
  conversation_id: z.string().nullable(),
  /** done: a one-off (`at`) schedule that has run */
  state: z.enum(["active", "paused", "done"]),
  next_run_at: z.string().nullable(),
  created_at: z.string(),
  /** runs posted */
  runs: z.number(),
  /** ticks skipped because the previous run was still going */
  skipped_overlap: z.number(),
  /** ticks that passed while the runtime was down, beyond the one run made on recovery */
  missed: z.number(),
  /** runs the front door refused or that failed to post */
  failures: z.number(),
  last_run: ScheduleRun.nullable(),
});
export type ScheduleView = z.infer<typeof ScheduleView>;
