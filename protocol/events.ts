import { z } from "zod";
import type { ImageRef } from "./content-blocks.js";

/**
 * An approval question answered: by a person (dashboard, CLI, API, a chat button), a remembered
 * approval rule, or the approval deadline. Emitted once per call that needed approval, so a client
 * can close the call's card wherever it was decided; the event's `at` is when.
 */
export const ApprovalDecidedEvent = z.object({
  type: z.literal("approval_decided"),
  toolCallId: z.string(),
  toolName: z.string(),
  approved: z.boolean(),
  /** "person", "timeout" (nobody decided before the approval deadline) or "rule:<rule_id>" */
  decided_by: z.string(),
  /** why it was denied, when a reason was given */
  reason: z.string().optional(),
  /** how long the call waited for the decision; 0 when a rule decided before anyone was asked */
  waited_ms: z.number().int().nonnegative(),
});
export type ApprovalDecidedEvent = z.infer<typeof ApprovalDecidedEvent>;

/**
 * The conversation's event stream. Every event is stored with a sequence number so a client can
 * replay from any point.
 */
export type ConversationEventData =
  /** `schedule_id`: the message is a run of that schedule */
  | { type: "message_start"; message_id: string; text: string; schedule_id?: string; images?: ImageRef[] }
  | { type: "message_delta"; delta: string }
  | { type: "message_end"; iteration: number; content: string | null; tool_calls: number }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: unknown }
  | { type: "tool_execution_update"; toolCallId: string; toolName: string; partial: unknown }
  | {
      type: "tool_execution_end";
      toolCallId: string;
      toolName: string;
      result: unknown;
      isError: boolean;
    }
  | { type: "approval_required"; toolCallId: string; toolName: string; args: unknown }
  | ApprovalDecidedEvent
  /** a device's result for a call that had already ended; the model reads it at its next call */
  | { type: "tool_late_result"; toolCallId: string; toolName: string; result: unknown; isError: boolean }
  /** `options`: the answers offered, when the question names some (a chat shows them as buttons) */
  | { type: "question"; toolCallId: string; question: string; options?: string[] }
  /** older turns were replaced by a summary in the model's view (the history keeps them) */
  | {
      type: "compaction";
      messages_summarized: number;
      tokens_before: number;
      tokens_after: number;
      /** the summary call failed: the model call went ahead with the whole view */
      error?: string;
    }
  | {
      type: "conversation_end";
      message_id: string;
      status: string;
      reply: string | null;
      stop_reason: string;
    };

export type ConversationEvent = ConversationEventData & { seq: number; at: number };

/**
 * How the note that gives the model a late result begins (docs/architecture.md#late-results): a
 * note from edgeloop in a user message, not the user speaking.
 */
export const LATE_RESULT_NOTE = "[edgeloop] A late result:";
