import { DurableObject } from "cloudflare:workers";
import type { RunOutput } from "@edgeloop/protocol/run-output";
import { log } from "../../../runtime/log.js";
import { AlarmSchedule } from "../../alarm-schedule.js";
import type { InboundEvent } from "../platform.js";
import { platformNamed } from "../platforms/index.js";
import type { ChatThreadRpc } from "./chat-thread-rpc.js";
import { followRuns } from "./follow-runs.js";
import { handleButton } from "./handle-button.js";
import { handleMessage } from "./handle-message.js";
import { drainOutbox } from "./send-outbox.js";
import type { ChatThreadEnv, ThreadContext } from "./thread-context.js";
import { type ThreadIdentity, ThreadStore } from "./thread-store.js";

/**
 * One chat thread (a Telegram chat or topic, a Slack thread, …): its conversation and device, the
 * runs it follows, its cards and the outbox of platform calls, all in its SQLite. Everything is
 * done from the alarm, after the call that brought the work returned: the webhook answers at
 * once, and work a restart interrupted is picked up by the next alarm
 * (docs/architecture.md#chat-threads).
 */
export class ChatThreadDO extends DurableObject<ChatThreadEnv> implements ChatThreadRpc {
  private readonly store: ThreadStore;
  private readonly alarms: AlarmSchedule;

  constructor(ctx: DurableObjectState, env: ChatThreadEnv) {
    super(ctx, env);
    this.store = new ThreadStore(ctx.storage.sql);
    this.alarms = new AlarmSchedule(ctx.storage);
  }

  async receive(identity: ThreadIdentity, event: InboundEvent): Promise<{ taken: boolean }> {
    if (!this.store.identity()) this.store.put("identity", identity);
    const taken = this.store.takeInbound(event, Date.now());
    if (taken) await this.alarms.atMost(Date.now());
    return { taken };
  }

  async deliverReply(key: string, reply: RunOutput): Promise<void> {
    if (reply.type !== "reply") return;
    const text =
      reply.reply ??
      (reply.status === "completed" ? "(no answer)" : `The run ended: ${reply.status} (${reply.stop_reason}).`);
    this.store.put(`final:${reply.message_id}`, true);
    this.store.enqueue(`final:${key}`, { type: "final", message_id: reply.message_id, text }, Date.now());
    await this.alarms.atMost(Date.now());
  }

  async notify(identity: ThreadIdentity, key: string, text: string): Promise<void> {
    if (!this.store.identity()) this.store.put("identity", identity);
    this.store.enqueue(`notice:${key}`, { type: "notice", text }, Date.now());
    await this.alarms.atMost(Date.now());
  }

  override async alarm(): Promise<void> {
    this.alarms.fired();
    const context = this.context();
    if (!context) return;
    for (const { event_id, event } of this.store.pendingInbound()) {
      try {
        if (event.kind === "message") await handleMessage(context, event);
        else await handleButton(context, event);
      } catch (e) {
        // Not retried: a half-handled message is not sent twice. The user is told, and may write again.
        log("error", "chat event failed", { thread: context.identity.key, event_id, error: String(e) });
        const text = "Something went wrong with that; please send it again.";
        this.store.enqueue(`notice:failed:${event_id}`, { type: "notice", text }, Date.now());
      }
      this.store.finishInbound(event_id, Date.now());
    }
    const now = Date.now();
    const times = [await followRuns(context, now), await drainOutbox(context, Date.now())].filter(
      (t): t is number => t !== null,
    );
    // Events that came in while this alarm ran are handled at once, not at the next poll.
    if (this.store.pendingInbound().length > 0) times.push(Date.now());
    if (times.length > 0) await this.alarms.atMost(Math.max(Math.min(...times), Date.now() + 50));
  }

  private context(): ThreadContext | null {
    const identity = this.store.identity();
    const registered = identity && platformNamed(identity.platform);
    if (!identity || !registered) return null;
    const settings = registered.settings(this.env);
    if (!settings.ok || settings.value === null) {
      log("warn", "chat thread without its platform's settings", { thread: identity.key });
      return null;
    }
    return {
      env: this.env,
      store: this.store,
      identity,
      client: registered.platform.client(settings.value),
      limits: registered.platform.limits,
    };
  }
}
