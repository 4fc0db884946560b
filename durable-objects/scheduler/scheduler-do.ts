import { DurableObject } from "cloudflare:workers";
import type { ScheduleView } from "@edgeloop/protocol/schedules";
import { log } from "../../runtime/log.js";
import { conversationFor } from "../addresses.js";
import { AlarmSchedule } from "../alarm-schedule.js";
import type { FrontDoorEnv } from "../front-door/front-door-env.js";
import { deliverRun } from "./deliver-run.js";
import { runOf, type StoredSchedule, scheduleView, timingOf } from "./schedule-record.js";
import { nextRun, planTick, timingProblem } from "./schedule-times.js";
import type { Delivery, NewSchedule, SchedulerRpc } from "./scheduler-rpc.js";
import { type SchedulerVars, schedulerSettings } from "./scheduler-settings.js";

export type SchedulerEnv = FrontDoorEnv & SchedulerVars;

/** While the alarm posts runs it keeps a later alarm set, so a crash in the middle is picked up again. */
const WATCHDOG_MS = 60_000;

/**
 * The deployment's schedules, in one object with one alarm: the alarm goes off at the earliest
 * next run; each due schedule is planned by the pure arithmetic in schedule-times.ts (run once for
 * the due tick however many passed while the runtime was down, or skip while the last run is still
 * going), posted, and moved to its next tick. Alarms are durable, so schedules survive eviction,
 * restarts and deploys.
 *
 * A run is posted through the front door (limits, routing, refusal counts; deliver-run.ts) with
 * the idempotency key `schedule:<id>:<tick>`: if the runtime dies after posting but before the
 * schedule moved on, the alarm posts the same tick again and the front door answers with the first
 * run instead of starting a second one.
 */
export class SchedulerDO extends DurableObject<SchedulerEnv> implements SchedulerRpc {
  private readonly sql: SqlStorage;
  private readonly alarms: AlarmSchedule;
  /** every schedule, by id: this object is the table's only writer */
  private readonly schedules = new Map<string, StoredSchedule>();

  constructor(ctx: DurableObjectState, env: SchedulerEnv) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.alarms = new AlarmSchedule(ctx.storage);
    this.sql.exec("CREATE TABLE IF NOT EXISTS schedules (schedule_id TEXT PRIMARY KEY, json TEXT NOT NULL)");
    for (const row of this.sql.exec<{ json: string }>("SELECT json FROM schedules")) {
      const s = JSON.parse(row.json) as StoredSchedule;
      this.schedules.set(s.schedule_id, s);
    }
    // An alarm lost for any reason is set again the first time the object wakes.
    void ctx.blockConcurrencyWhile(() => this.scheduleAlarm());
  }

  // ---- RPC ---------------------------------------------------------------------------------

  async create(
    input: NewSchedule,
  ): Promise<{ ok: true; schedule: ScheduleView } | { ok: false; error: string; field: string }> {
    const settings = schedulerSettings(this.env);
    if (!settings.ok) return { ok: false, error: `server misconfigured: ${settings.error}`, field: "" };
    const now = Date.now();
    const timing = timingOf(input, now);
    const problem = timingProblem(timing, settings.value.minScheduleSeconds, now);
    if (problem) {
      const field = timing.kind === "cron" ? "cron" : timing.kind === "every" ? "every_seconds" : "at";
      return { ok: false, error: problem, field };
    }
    const s: StoredSchedule = {
      schedule_id: `sched_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`,
      sender: input.sender,
      agent_id: input.agent_id ?? null,
      agent_ids: input.agent_ids ? [...input.agent_ids] : null,
      pool: input.pool ?? null,
      mode: input.mode ?? null,
      tools: input.tools ?? null,
      text: input.text,
      timing,
      conversation_id: input.conversation_id ?? null,
      state: "active",
      next_run_at: nextRun(timing, now),
      created_at: now,
      runs: 0,
      skipped_overlap: 0,
      missed: 0,
      failures: 0,
      last_run: null,
      last_posted: null,
    };
    this.save(s);
    await this.scheduleAlarm();
    log("info", "schedule created", { schedule_id: s.schedule_id, next_run_at: s.next_run_at });
    return { ok: true, schedule: scheduleView(s) };
  }

  async list(owner?: string): Promise<ScheduleView[]> {
    return [...this.schedules.values()]
      .filter((s) => owner === undefined || s.sender === owner)
      .sort((a, b) => b.created_at - a.created_at)
      .map(scheduleView);
  }

  async get(scheduleId: string, owner?: string): Promise<ScheduleView | null> {
    const s = this.visible(scheduleId, owner);
    return s ? scheduleView(s) : null;
  }

  async remove(scheduleId: string, owner?: string): Promise<boolean> {
    if (!this.visible(scheduleId, owner)) return false;
    this.schedules.delete(scheduleId);
    this.sql.exec("DELETE FROM schedules WHERE schedule_id = ?", scheduleId);
    await this.scheduleAlarm();
    return true;
  }

  async setPaused(scheduleId: string, paused: boolean, owner?: string): Promise<ScheduleView | null> {
    const s = this.visible(scheduleId, owner);
    if (!s) return null;
    if (s.state !== "done") {
      s.state = paused ? "paused" : "active";
      // Resumed: from the next tick after now; what passed while paused is not made up.
      if (!paused) s.next_run_at = nextRun(s.timing, Date.now());
      this.save(s);
      await this.scheduleAlarm();
    }
    return scheduleView(s);
  }

  /** The schedule, if `owner` (a scoped principal) made it or no owner is given. */
  private visible(scheduleId: string, owner: string | undefined): StoredSchedule | null {
    const s = this.schedules.get(scheduleId);
    return s && (owner === undefined || s.sender === owner) ? s : null;
  }

  // ---- the alarm -----------------------------------------------------------------------------

  override async alarm(): Promise<void> {
    this.alarms.fired();
    const now = Date.now();
    await this.alarms.set(now + WATCHDOG_MS);
    const due = [...this.schedules.values()].filter(
      (s) => s.state === "active" && s.next_run_at !== null && s.next_run_at <= now,
    );
    await Promise.all(due.map((s) => this.fire(s.schedule_id, now)));
    await this.scheduleAlarm(true);
  }

  private async fire(scheduleId: string, now: number): Promise<void> {
    const before = this.schedules.get(scheduleId);
    if (!before) return;
    const running = before.last_posted ? await this.stillGoing(before.last_posted) : false;
    const plan = planTick(before, now, running);
    if (plan.action === "wait") return;
    let delivery: Delivery | null = null;
    if (plan.action === "run") {
      const run = runOf(before, plan.tick);
      try {
        delivery = await deliverRun(this.env, run);
      } catch (e) {
        delivery = { ok: false, error: `could not post: ${String(e)}` };
      }
    }
    // Deleted or paused while the run was being posted: the run stands, the schedule does not move.
    const s = this.schedules.get(scheduleId);
    if (!s || s.next_run_at !== plan.tick) return;
    s.next_run_at = plan.next_run_at;
    if (s.next_run_at === null) s.state = "done";
    s.missed += plan.missed;
    const at = Date.now();
    if (!delivery) {
      s.skipped_overlap += 1;
      s.last_run = {
        tick: plan.tick,
        at,
        outcome: "skipped_overlap",
        conversation_id: null,
        message_id: null,
        error: null,
      };
    } else if (delivery.ok) {
      s.runs += 1;
      s.last_posted = { conversation_id: delivery.conversation_id, message_id: delivery.message_id };
      s.last_run = { tick: plan.tick, at, outcome: "posted", ...s.last_posted, error: null };
    } else {
      s.failures += 1;
      s.last_run = {
        tick: plan.tick,
        at,
        outcome: "refused",
        conversation_id: null,
        message_id: null,
        error: delivery.error,
      };
    }
    this.save(s);
    log(delivery?.ok === false ? "warn" : "info", "schedule tick", {
      schedule_id: scheduleId,
      outcome: s.last_run.outcome,
      tick: plan.tick,
      late_ms: at - plan.tick,
      missed: plan.missed,
      ...(delivery && !delivery.ok ? { error: delivery.error } : {}),
    });
  }

  /** Whether the message of the last run is still running or queued in its conversation. */
  private async stillGoing(last: NonNullable<StoredSchedule["last_posted"]>): Promise<boolean> {
    try {
      return (await conversationFor(this.env, last.conversation_id).messageState(last.message_id)) !== "done";
    } catch (e) {
      log("warn", "could not tell whether the last scheduled run is still going", { error: String(e) });
      return false;
    }
  }

  private save(s: StoredSchedule): void {
    this.schedules.set(s.schedule_id, s);
    this.sql.exec(
      "INSERT INTO schedules (schedule_id, json) VALUES (?, ?) ON CONFLICT(schedule_id) DO UPDATE SET json = excluded.json",
      s.schedule_id,
      JSON.stringify(s),
    );
  }

  /** The alarm at the earliest next run of an active schedule (`exact`: replace the watchdog). */
  private async scheduleAlarm(exact = false): Promise<void> {
    let next = Number.POSITIVE_INFINITY;
    for (const s of this.schedules.values())
      if (s.state === "active" && s.next_run_at !== null) next = Math.min(next, s.next_run_at);
    if (next === Number.POSITIVE_INFINITY) {
      if (exact) {
        await this.ctx.storage.deleteAlarm();
        this.alarms.fired();
      }
      return;
    }
    if (exact) await this.alarms.set(Math.max(next, Date.now()));
    else await this.alarms.atMost(next);
  }
}
