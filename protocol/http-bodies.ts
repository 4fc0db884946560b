import { z } from "zod";
import { Identifier, ToolName } from "./ids.js";

export const MAX_MESSAGE_TEXT = 32_000;

export const MessageOptions = z
  .object({
    max_iterations: z.number().int().min(1).max(100).optional(),
    tool_error_limit: z.number().int().min(1).max(100).optional(),
    max_tokens: z.number().int().min(1).max(100_000_000).optional(),
    max_wall_ms: z
      .number()
      .int()
      .min(1000)
      .max(7 * 24 * 3600 * 1000)
      .optional(),
    citations: z.boolean().optional(),
  })
  .strict();
export type MessageOptions = z.infer<typeof MessageOptions>;

/**
 * POST /v1/messages. Names either the device (`agent_id`) or a `pool` of devices; with a pool,
 * `tools` lists tools the chosen device must have (the pool's devices without them are skipped).
 */
export const MessageRequest = z
  .object({
    agent_id: Identifier.optional(),
    pool: Identifier.optional(),
    tools: z.array(ToolName).max(64).optional(),
    conversation_id: Identifier.optional(),
    text: z.string().min(1, "must not be empty").max(MAX_MESSAGE_TEXT),
    /** per-conversation loop settings, within the deployment's bounds */
    options: MessageOptions.optional(),
    /** the final reply (and with `reply_events`, every event) is POSTed here, signed */
    reply_url: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//.test(u), "must be an http(s) URL")
      .optional(),
    reply_events: z.boolean().optional(),
  })
  .strict()
  .superRefine((m, ctx) => {
    if ((m.agent_id === undefined) === (m.pool === undefined)) {
      ctx.addIssue({ code: "custom", path: ["agent_id"], message: "give exactly one of agent_id or pool" });
    }
  });
export type MessageRequest = z.infer<typeof MessageRequest>;

/** `?wait=N`: seconds, 0-60. */
export const WaitQuery = z.coerce.number().int().min(0).max(60);

export const MessageAccepted = z.object({ conversation_id: z.string(), message_id: z.string() });
export type MessageAccepted = z.infer<typeof MessageAccepted>;

export const ConversationStatus = z.enum(["idle", "running", "completed", "failed", "cancelled"]);
export type ConversationStatus = z.infer<typeof ConversationStatus>;

export const ToolCallSummary = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.unknown(),
  status: z.enum(["pending", "success", "error", "blocked"]),
  error_type: z.string().optional(),
  elapsed_ms: z.number().optional(),
});
export type ToolCallSummary = z.infer<typeof ToolCallSummary>;

/** The 200 answer of `POST /v1/messages?wait=N`. */
export const WaitReply = z.object({
  conversation_id: z.string(),
  message_id: z.string(),
  status: ConversationStatus,
  reply: z.string().nullable(),
  tool_calls: z.array(ToolCallSummary),
  iterations: z.number().int(),
  stop_reason: z.string().nullable().optional(),
});
export type WaitReply = z.infer<typeof WaitReply>;

/** RFC 9457 problem details, as every 4xx/5xx of the API answers. */
export type Problem = {
  type: string;
  title: string;
  status: number;
  detail?: string;
  errors?: { path: string; message: string }[];
};
