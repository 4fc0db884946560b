import { z } from "zod";
import { ConversationStatus, ToolCallSummary } from "./http-bodies.js";

/**
 * A run's output: its events while it works and its reply when it ends, in one format wherever it
 * goes. It is the public webhook format (each a signed POST to the message's `reply_url`,
 * docs/protocol.md#a-runs-output) and what a chat thread is handed by the conversation.
 */

/** One stored event of the conversation's stream (events.ts), with its sequence number and time. */
export const RunEvent = z.looseObject({ type: z.string(), seq: z.number().int().positive(), at: z.number() });

/** An event of a run, delivered while it works (`reply_events: true`, or to a chat thread). */
export const RunEventOutput = z.object({
  type: z.literal("event"),
  conversation_id: z.string(),
  event: RunEvent,
});
export type RunEventOutput = z.infer<typeof RunEventOutput>;

/** A run's reply, once it has ended: the same fields as `POST /v1/messages?wait=N` answers. */
export const RunReplyOutput = z.object({
  type: z.literal("reply"),
  conversation_id: z.string(),
  message_id: z.string(),
  status: ConversationStatus,
  reply: z.string().nullable(),
  stop_reason: z.string(),
  tool_calls: z.array(ToolCallSummary),
  iterations: z.number().int(),
});
export type RunReplyOutput = z.infer<typeof RunReplyOutput>;

export const RunOutput = z.discriminatedUnion("type", [RunEventOutput, RunReplyOutput]);
export type RunOutput = z.infer<typeof RunOutput>;

/**
 * Where a message's run output goes: a sender's `reply_url` (the reply, and with `events` every
 * event), or the chat thread the message came from (`thread` is its key,
 * `<platform>:<chat>[:<topic or thread>]`), which is handed every event and the reply.
 */
export const ReplyTarget = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("url"), url: z.string(), events: z.boolean() }),
  z.object({ kind: z.literal("chat"), thread: z.string().min(1) }),
]);
export type ReplyTarget = z.infer<typeof ReplyTarget>;
