import { DurableObject } from "cloudflare:workers";
import type { RunOutput } from "@edgeloop/protocol/run-output";
import { log } from "../../../runtime/log.js";
import { AlarmSchedule } from "../../alarm-schedule.js";
import type { InboundEvent } from "../platform.js";
import { platformNamed } from "../platforms/index.js";
import type { ChatThreadRpc } from "./chat-thread-rpc.js";
import { handleButton } from "./handle-button.js";
import { handleMessage } from "./handle-message.js";
import { applyRunOutput, showLiveRuns } from "./run-output.js";
import { drainOutbox } from "./send-outbox.js";
import type { ChatThreadEnv, ThreadContext } from "./thread-context.js";
import { type ThreadIdentity, ThreadStore } from "./thread-store.js";

/** Work interrupted by a restart is picked up by the alarm this long after it began. */
const RESUME_AFTER_MS = 15_000;

/**
 * One chat thread (a Telegram chat or topic, a Slack thread, …): its conversation and device, its
 * runs, its cards and the outbox of platform calls, all in its SQLite. A call that brings work
 * (an inbound event, a run's output pushed by its conversation, a notice) stores it and returns at
 * once; the work is done right after, one pass at a time, with the alarm set as a fallback so a
 * restart mid-work resumes it (docs/architecture.md#chat-threads). The alarm is otherwise set only
 * for the thread's own clock: a send to retry, a live edit held back, "typing…" to renew.
 */
export class ChatThreadDO extends DurableObject<ChatThreadEnv> implements ChatThreadRpc {
  private readonly store: ThreadStore;
  private readonly alarms: AlarmSchedule;
  private working: Promise<void> | null = null;
  private again = false;

  constructor(ctx: DurableObjectState, env: ChatThreadEnv) {
    super(ctx, env);
    this.store = new ThreadStore(ctx.storage.sql);
    this.alarms = new AlarmSchedule(ctx.storage);
  }

  async receive(identity: ThreadIdentity, event: InboundEvent): Promise<{ taken: boolean }> {
    if (!this.store.identity()) this.store.put("identity", identity);
    const taken = this.store.takeInbound(event, Date.now());
    if (taken) this.kick();
    return { taken };
  }

  async runOutput(conversationId: string, outputs: RunOutput[]): Promise<void> {
    const context = this.context();
    if (!context) return;
    applyRunOutput(context, conversationId, outputs, Date.now());
    this.kick();
  }

  async notify(identity: ThreadIdentity, key: string, text: string): Promise<void> {
    if (!this.store.identity()) this.store.put("identity", identity);
    this.store.enqueue(`notice:${key}`, { type: "notice", text }, Date.now());
    this.kick();
  }

  override async alarm(): Promise<void> {
    this.alarms.fired();
    await this.work();
  }

  /** Do the work after the call that brought it has returned. */
  private kick(): void {
    this.ctx.waitUntil(this.work());
  }

  /** One pass at a time; work brought meanwhile makes the running pass go round again. */
  private work(): Promise<void> {
    if (this.working) {
      this.again = true;
      return this.working;
    }
    this.working = (async () => {
      try {
        await this.alarms.atMost(Date.now() + RESUME_AFTER_MS);
        for (;;) {
          this.again = false;
          const next = await this.pass();
          if (this.again) continue;
          if (next === null) await this.alarms.clear();
          else await this.alarms.set(Math.max(next, Date.now() + 50));
          if (!this.again) break;
        }
      } finally {
        this.working = null;
      }
    })();
    return this.working;
  }

  /** Inbound events, then live messages, then the outbox; returns when the thread's clock needs it next. */
  private async pass(): Promise<number | null> {
    const context = this.context();
    if (!context) return null;
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
    const live = await showLiveRuns(context, Date.now());
    const sends = await drainOutbox(context, Date.now());
    const times = [live, sends].filter((t): t is number => t !== null);
    return times.length > 0 ? Math.min(...times) : null;
  }

  private context(): ThreadContext | null {
    const identity = this.store.identity();
    const platform = identity && platformNamed(identity.platform);
    if (!identity || !platform) return null;
    const settings = platform.settings(this.env);
    if (!settings.ok || settings.value === null) {
      log("warn", "chat thread without its platform's settings", { thread: identity.key });
      return null;
    }
    return {
      env: this.env,
      store: this.store,
      identity,
      platform,
      client: platform.client(settings.value),
      limits: platform.limits,
    };
  }
}
