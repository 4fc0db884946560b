import { rejectionCounters } from "../durable-objects/addresses.js";
import { SchedulerBase } from "../durable-objects/scheduler/scheduler-do.js";
import type { Delivery, ScheduledRun } from "../durable-objects/scheduler/scheduler-rpc.js";
import type { MessageRequest } from "../protocol/index.js";
import { log } from "../runtime/log.js";
import { readConfig } from "./config.js";
import type { Env } from "./env.js";
import { acceptMessage } from "./front-door/accept-message.js";

/**
 * The scheduler's Durable Object as deployed: the schedules and their alarm
 * (durable-objects/scheduler/scheduler-do.ts), posting each run through the same front door as
 * `POST /v1/messages` (front-door/accept-message.ts), as the sender who made the schedule, with
 * the idempotency key `schedule:<id>:<tick>` so a tick posted twice starts one run.
 */
export class SchedulerDO extends SchedulerBase {
  protected override async deliver(run: ScheduledRun): Promise<Delivery> {
    const env = this.env as Env;
    const cfg = readConfig(env);
    if (!cfg.ok) return { ok: false, error: `server misconfigured: ${cfg.error}` };
    const msg: MessageRequest = {
      text: run.text,
      ...(run.agent_id ? { agent_id: run.agent_id } : {}),
      ...(run.pool ? { pool: run.pool } : {}),
      ...(run.tools ? { tools: run.tools } : {}),
      ...(run.conversation_id ? { conversation_id: run.conversation_id } : {}),
    };
    const out = await acceptMessage(env, cfg.config, {
      sender: run.sender,
      idempotencyKey: `schedule:${run.schedule_id}:${run.tick}`,
      rawBody: JSON.stringify(msg),
      msg,
      waitSeconds: null,
      scheduleId: run.schedule_id,
    });
    if (out.ok) {
      const body = JSON.parse(out.body) as { conversation_id: string; message_id: string };
      return { ok: true, conversation_id: body.conversation_id, message_id: body.message_id };
    }
    // Counted with the front door's other refusals (GET /v1/limits).
    await rejectionCounters(env)
      .increment(`scheduled run ${out.status} ${out.title}`)
      .catch((e: unknown) => log("warn", "rejection not counted", { error: String(e) }));
    return { ok: false, error: `${out.status} ${out.title}: ${out.detail}` };
  }
}
