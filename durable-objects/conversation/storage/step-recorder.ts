import type { ConversationEvent, ToolOutcome } from "@edgeloop/protocol";
import { ReplyTarget, type RunReplyOutput } from "@edgeloop/protocol/run-output";
import type { RunRecord } from "../../metrics/aggregate.js";
import type { ParentLink } from "../conversation-rpc.js";
import type { Effect, FinishedReply, LoopState } from "../core/index.js";
import type { ConversationStore } from "./conversation-store.js";
import { type OutboundEffect, outboxKey } from "./outbound-effects.js";

/** One event's step: the state before, the state after and the effects, computed at `now`. */
export type Step = { prev: LoopState; state: LoopState; effects: Effect[]; now: number };

/** An outbox row written by this step, to be performed once the step is committed. */
export type PendingEffect = { id: number; effect: OutboundEffect };

/** What a committed step leaves to do: effects to perform, events to broadcast, replies to hand to waiters. */
export type RecordedStep = { toPerform: PendingEffect[]; emitted: ConversationEvent[]; replies: FinishedReply[] };

/**
 * Writes a step's effects into the conversation's SQLite, inside the transaction that also saves
 * its state: events, deadlines, and an outbox row for everything that leaves the object, including
 * what the core does not know about (reply_url deliveries, the conversation index and metrics, the
 * parent of a sub-task). See docs/architecture.md#commit-before-perform.
 */
export class StepRecorder {
  /** reply targets by message id: read for every event, and this object is their only writer */
  private readonly replyTargets = new Map<string, ReplyTarget | null>();

  constructor(
    private readonly store: ConversationStore,
    /** `model` labels the runs in the metrics */
    private readonly metrics: { model: string },
  ) {}

  /** A message's reply target, stored before its first step so a restart still delivers there. */
  rememberReplyTarget(messageId: string, target: ReplyTarget | undefined): void {
    if (target) this.store.putValue(`reply:${messageId}`, target);
    this.replyTargets.set(messageId, target ?? null);
  }

  /** Must run inside the step's transaction. */
  record({ prev, state, effects, now }: Step): RecordedStep {
    const out: RecordedStep = { toPerform: [], emitted: [], replies: [] };
    const enqueue = (effect: OutboundEffect) => {
      const id = this.store.addOutbox(outboxKey(effect), effect, now);
      if (id !== null) out.toPerform.push({ id, effect });
    };
    const index = (messageId: string, status: string, text: string | null, run: RunRecord | null) => {
      enqueue({ type: "record_metrics", message_id: `${messageId}:${status}`, run, status, text, at: now });
    };
    for (const effect of effects) {
      switch (effect.type) {
        case "emit_event": {
          const stored = this.store.appendEvent(effect.event, now);
          out.emitted.push(stored);
          // The run an event belongs to: the one it starts, else the one that was going.
          const runMessage =
            effect.event.type === "message_start" || effect.event.type === "conversation_end"
              ? effect.event.message_id
              : (prev.run?.message_id ?? state.run?.message_id ?? null);
          const target = runMessage ? this.replyTarget(runMessage) : null;
          // The reply follows in this same step, and carries what is left.
          if (target && runMessage && effect.event.type !== "conversation_end") {
            if (target.kind === "chat")
              enqueue({ type: "deliver_chat", thread: target.thread, message_id: runMessage, reply: null });
            else if (target.events)
              enqueue({
                type: "deliver_reply",
                key: `event:${stored.seq}`,
                url: target.url,
                payload: { type: "event", conversation_id: state.conversation_id, event: stored },
                first_at: now,
              });
          }
          if (effect.event.type === "message_start") index(effect.event.message_id, "running", effect.event.text, null);
          break;
        }
        case "set_deadline":
          this.store.setDeadline(effect.key, effect.at);
          break;
        case "clear_deadline":
          this.store.clearDeadline(effect.key);
          break;
        case "reply": {
          const reply = effect.reply;
          out.replies.push(reply);
          const target = this.replyTarget(reply.message_id);
          const payload = replyOutput(state.conversation_id, reply);
          if (target?.kind === "chat")
            enqueue({ type: "deliver_chat", thread: target.thread, message_id: reply.message_id, reply: payload });
          else if (target)
            enqueue({
              type: "deliver_reply",
              key: `${reply.message_id}:reply`,
              url: target.url,
              payload,
              first_at: now,
            });
          const m = reply.metrics;
          const run: RunRecord | null = m
            ? {
                at: now,
                model: this.metrics.model,
                agent_id: state.agent_id,
                status: reply.status,
                stop_reason: reply.stop_reason,
                ...m,
              }
            : null;
          index(reply.message_id, reply.status, reply.reply, run);
          const parent = this.store.getValue<ParentLink>("parent");
          if (parent) {
            enqueue({ type: "notify_parent", message_id: reply.message_id, parent, outcome: subtaskOutcome(reply) });
          }
          break;
        }
        default:
          enqueue(effect);
      }
    }
    // A finished message's target is not needed again: forgotten, so memory stays bounded
    // (docs/architecture.md#bounded-memory); a later lookup reads it from storage.
    for (const reply of out.replies) this.replyTargets.delete(reply.message_id);
    return out;
  }

  private replyTarget(messageId: string): ReplyTarget | null {
    let target = this.replyTargets.get(messageId);
    if (target === undefined) {
      const stored = ReplyTarget.safeParse(this.store.getValue<unknown>(`reply:${messageId}`));
      target = stored.success ? stored.data : null;
      this.replyTargets.set(messageId, target);
    }
    return target;
  }
}

/** The reply as its target is handed it (protocol/run-output.ts): what `?wait=N` answers, and its type. */
export function replyOutput(conversationId: string, reply: FinishedReply): RunReplyOutput {
  return {
    type: "reply",
    conversation_id: conversationId,
    message_id: reply.message_id,
    status: reply.status,
    reply: reply.reply,
    stop_reason: reply.stop_reason,
    tool_calls: reply.tool_calls,
    iterations: reply.iterations,
  };
}

/** What the parent's `task` call gets: the child's final reply, or why there is none. */
function subtaskOutcome(reply: FinishedReply): ToolOutcome {
  if (reply.status === "completed")
    return { status: "success", tool: "task", result: reply.reply ?? "", stderr: "", exit_code: 0, elapsed_ms: 0 };
  return {
    status: "error",
    tool: "task",
    error: `the sub-task ended ${reply.status}: ${reply.reply ?? reply.stop_reason}`,
    error_type: reply.status === "cancelled" ? "cancelled" : "execution_failed",
  };
}
