import { log } from "../../runtime/log.js";
import { chatThreadFor, deploymentOf } from "../addresses.js";
import type { DurableObjectBindings } from "../bindings.js";
import type { FrontDoorEnv } from "../front-door/front-door-env.js";
import type { ImmediateAnswer } from "./platform.js";
import { platformNamed } from "./platforms/index.js";
import { threadIdentity } from "./thread-key.js";

export type WebhookOutcome =
  | { ok: true; immediate?: ImmediateAnswer; taken: number; repeated: number }
  | { ok: false; status: number; title: string; detail: string };

/**
 * One platform webhook request: the platform verifies and parses it, then each event is handed to
 * its chat thread's object, which takes it once by the platform's own event id (so a platform
 * retry is answered without a second run) and does the work after this returns. Nothing here
 * waits for a model or a device.
 */
export async function receiveWebhook(
  env: FrontDoorEnv & Pick<DurableObjectBindings, "CHAT_THREAD">,
  platformName: string,
  request: Request,
): Promise<WebhookOutcome> {
  const platform = platformNamed(platformName);
  if (!platform) return { ok: false, status: 404, title: "Not found", detail: `no channel '${platformName}'` };
  const settings = platform.settings(env);
  if (!settings.ok) return { ok: false, status: 500, title: "Server misconfigured", detail: settings.error };
  if (settings.value === null)
    return { ok: false, status: 404, title: "Channel not configured", detail: `${platformName} has no settings here` };
  const result = await platform.inbound(request, settings.value);
  if (!result.ok) {
    await deploymentOf(env)
      .countRejection(`channel ${platform.name}: webhook ${result.status}`)
      .catch(() => {});
    log("warn", "channel webhook refused", { platform: platform.name, status: result.status, reason: result.reason });
    const title = result.status === 400 ? "Invalid webhook body" : "Webhook not verified";
    return { ok: false, status: result.status, title, detail: result.reason };
  }
  let taken = 0;
  let repeated = 0;
  for (const event of result.events) {
    const identity = threadIdentity(platform.name, event.chat);
    const received = await chatThreadFor(env, identity.key).receive(identity, event);
    if (received.taken) taken++;
    else repeated++;
  }
  return { ok: true, taken, repeated, ...(result.immediate ? { immediate: result.immediate } : {}) };
}
