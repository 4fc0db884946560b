/**
 * Effects that leave the conversation object (model, device hub, built-ins, parents, metrics,
 * reply deliveries) as the outbox stores them, and the key that makes each one unique in it.
 */
import type { ToolOutcome } from "@edgeloop/protocol";
import type { RunOutput, RunReplyOutput } from "@edgeloop/protocol/run-output";
import type { RunRecord } from "../../metrics/aggregate.js";
import type { ParentLink } from "../conversation-rpc.js";
import type { Effect } from "../core/index.js";

/** A sub-conversation's reply going back to the call in its parent that started it (`task`). */
export type NotifyParent = {
  type: "notify_parent";
  message_id: string;
  parent: ParentLink;
  outcome: ToolOutcome;
};

/** A finished run's numbers, written to the metrics shard its conversation hashes to. */
export type RecordMetrics = {
  type: "record_metrics";
  message_id: string;
  run: RunRecord | null;
  status: string;
  text: string | null;
  at: number;
};

/** A run's reply or event POSTed to its `reply_url`, retried until acknowledged or expired. */
export type DeliverReply = { type: "deliver_reply"; key: string; url: string; payload: RunOutput; first_at: number };

/**
 * A chat run's output pushed to its thread (effects/chat-delivery.ts): the events stored since the
 * last push, read when it is performed (so one row carries everything that came meanwhile), and the
 * reply when `reply` is set. One row per run is pending at a time.
 */
export type DeliverChat = { type: "deliver_chat"; thread: string; message_id: string; reply: RunReplyOutput | null };

/** Effects that leave the object (LLM, device hub, built-ins); kept in an outbox until they finish. */
export type OutboundEffect =
  | Extract<
      Effect,
      { type: "call_llm" | "dispatch_tool" | "cancel_tool" | "run_builtin" | "compact" | "record_denial" }
    >
  | NotifyParent
  | RecordMetrics
  | DeliverReply
  | DeliverChat;
export type OutboxRow = { id: number; effect: OutboundEffect; attempts: number; next_at: number };

/** One outbox entry per effect: a repeated step cannot queue the same effect twice. */
export function outboxKey(effect: OutboundEffect): string {
  switch (effect.type) {
    case "call_llm":
      return `llm:${effect.call_id}`;
    case "dispatch_tool":
      return `dispatch:${effect.request_id}`;
    case "cancel_tool":
      return `cancel:${effect.request_id}`;
    case "run_builtin":
      return `builtin:${effect.request_id}`;
    case "notify_parent":
      return `parent:${effect.message_id}`;
    case "record_metrics":
      return `metrics:${effect.message_id}`;
    case "deliver_reply":
      return `deliver:${effect.key}`;
    case "deliver_chat":
      return `chat:${effect.message_id}${effect.reply ? ":reply" : ""}`;
    case "compact":
      return `compact:${effect.call_id}`;
    case "record_denial":
      return `denial:${effect.request_id}`;
  }
}
