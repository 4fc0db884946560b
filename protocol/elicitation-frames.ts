import { z } from "zod";
import { Identifier } from "./ids.js";

/**
 * A device MCP server's question for a person during a tool call (MCP `elicitation/create`, form
 * mode), and the person's answer back (docs/protocol.md#elicitation). The agent's MCP client asks
 * the hub with `elicitation`, tied to the running command by its `request_id`; the conversation
 * asks the person as it asks a remote server's question, and the hub sends the answer in
 * `elicitation_answer`, which the agent gives the server as its `ElicitResult`.
 */

/** The content of an accepted answer: the spec's form values (primitives, or a list of choices). */
export const ElicitationContent = z.record(
  z.string(),
  z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]),
);
export type ElicitationContent = z.infer<typeof ElicitationContent>;

/** What the server is given, as MCP's `ElicitResult` says it (without `_meta`). */
export const ElicitationReply = z.discriminatedUnion("action", [
  z.object({ action: z.literal("accept"), content: ElicitationContent }),
  z.object({ action: z.literal("decline") }),
  z.object({ action: z.literal("cancel") }),
]);
export type ElicitationReply = z.infer<typeof ElicitationReply>;

/**
 * device → hub. `elicitation_id` is the agent's, one per question: a question re-sent after a
 * reconnect keeps it, so the conversation asks a person once. `requested_schema` is the server's
 * as it sent it; the conversation reads it (a schema it cannot ask is answered `decline`).
 */
export const ElicitationFrame = z.object({
  type: z.literal("elicitation"),
  request_id: Identifier,
  elicitation_id: Identifier,
  /** the skill whose server asks: the question is shown under this name */
  server: z.string().min(1).max(128),
  message: z.string().max(8_000),
  requested_schema: z.record(z.string(), z.unknown()),
});
export type ElicitationFrame = z.infer<typeof ElicitationFrame>;

const AnswerIds = { type: z.literal("elicitation_answer"), request_id: Identifier, elicitation_id: Identifier };

/** hub → device: the answer to one `elicitation`, for the agent to give the server. */
export const ElicitationAnswerFrame = z.discriminatedUnion("action", [
  z.object({ ...AnswerIds, action: z.literal("accept"), content: ElicitationContent }),
  z.object({ ...AnswerIds, action: z.literal("decline") }),
  z.object({ ...AnswerIds, action: z.literal("cancel") }),
]);
export type ElicitationAnswerFrame = z.infer<typeof ElicitationAnswerFrame>;

/** The answer frame for a question, from the reply the server is to get. */
export function elicitationAnswerFrame(
  ids: { request_id: string; elicitation_id: string },
  reply: ElicitationReply,
): ElicitationAnswerFrame {
  return { type: "elicitation_answer", request_id: ids.request_id, elicitation_id: ids.elicitation_id, ...reply };
}

/** The reply a server is given from an answer frame (the transport's ids dropped). */
export function replyOf(frame: ElicitationAnswerFrame): ElicitationReply {
  return frame.action === "accept" ? { action: "accept", content: frame.content } : { action: frame.action };
}
