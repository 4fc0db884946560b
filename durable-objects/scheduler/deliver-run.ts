import type { MessageRequest } from "@edgeloop/protocol";
import { type Principal, scopedPrincipal, unscoped } from "../../runtime/access.js";
import { log } from "../../runtime/log.js";
import { deploymentOf } from "../addresses.js";
import { acceptMessage, type MessageOutcome } from "../front-door/accept-message.js";
import { readConfig, type WorkerConfig } from "../front-door/front-door-config.js";
import type { FrontDoorEnv } from "../front-door/front-door-env.js";
import type { Delivery, ScheduledRun } from "./scheduler-rpc.js";

/**
 * Post one scheduled run through the same front door as `POST /v1/messages`
 * (front-door/accept-message.ts), as the principal who made the schedule, with the idempotency
 * key `schedule:<id>:<tick>` so a tick posted twice starts one run. A schedule made with a scoped
 * key is checked against that key at every run: revoked (or gone), the run is refused and counted;
 * its devices and conversations are checked as for any message of the key.
 */
export async function deliverRun(env: FrontDoorEnv, run: ScheduledRun): Promise<Delivery> {
  const cfg = readConfig(env);
  if (!cfg.ok) return { ok: false, error: `server misconfigured: ${cfg.error}` };
  const principal = await runPrincipal(env, cfg.config, run.sender);
  const out: MessageOutcome = principal
    ? await acceptMessage(env, cfg.config, {
        principal,
        idempotencyKey: `schedule:${run.schedule_id}:${run.tick}`,
        ...messageOf(run),
        waitSeconds: null,
        scheduleId: run.schedule_id,
      })
    : {
        kind: "refused",
        refusal: { status: 403, title: "Key revoked", detail: `the schedule's key (${run.sender}) is revoked` },
      };
  if (out.kind !== "refused") {
    const { conversation_id, message_id } = out.kind === "accepted" ? out.accepted : out.reply;
    return { ok: true, conversation_id, message_id };
  }
  const { status, title, detail } = out.refusal;
  // Counted with the front door's other refusals (GET /v1/limits).
  await deploymentOf(env)
    .countRejection(`scheduled run ${status} ${title}`)
    .catch((e: unknown) => log("warn", "rejection not counted", { error: String(e) }));
  return { ok: false, error: `${status} ${title}: ${detail}` };
}

function messageOf(run: ScheduledRun): { msg: MessageRequest; rawBody: string } {
  const msg: MessageRequest = {
    text: run.text,
    ...(run.agent_id ? { agent_id: run.agent_id } : {}),
    ...(run.agent_ids ? { agent_ids: run.agent_ids } : {}),
    ...(run.pool ? { pool: run.pool } : {}),
    ...(run.mode ? { mode: run.mode } : {}),
    ...(run.tools ? { tools: run.tools } : {}),
    ...(run.conversation_id ? { conversation_id: run.conversation_id } : {}),
  };
  return { msg, rawBody: JSON.stringify(msg) };
}

/** Who a run is posted as, read again at every run; null when the schedule's key is revoked or gone. */
async function runPrincipal(env: FrontDoorEnv, cfg: WorkerConfig, sender: string): Promise<Principal | null> {
  if (!sender.startsWith("key:")) return unscoped(sender, sender === "admin");
  const key = await deploymentOf(env).getKey(sender.slice("key:".length));
  if (!key || key.revoked_at !== null) return null;
  return scopedPrincipal(sender, key, cfg.POOLS);
}
