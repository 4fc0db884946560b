import { z } from "zod";
import { Identifier, ToolName } from "./ids.js";

export const MAX_MESSAGE_TEXT = 32_000;
/** The most devices one message may name (`agent_ids`); a fleet pool is held to the same. */
export const MAX_FLEET_DEVICES = 16;

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
 * POST /v1/messages. Names the device (`agent_id`), several devices (`agent_ids`, a fleet) or a
 * `pool` of devices; with a pool, `tools` lists tools the chosen device must have (the pool's
 * devices without them are skipped), and `mode: "fleet"` uses all of its devices at once
 * (docs/fleet.md).
 */
export const MessageRequest = z
  .object({
    agent_id: Identifier.optional().describe("the device; give this, `agent_ids` or `pool`"),
    agent_ids: z
      .array(Identifier)
      .min(2)
      .max(MAX_FLEET_DEVICES)
      .refine((ids) => new Set(ids).size === ids.length, "must not repeat a device")
      .optional()
      .describe("several devices, one conversation over all of them (a fleet; docs/fleet.md)"),
    pool: Identifier.optional().describe("a pool of devices (POOLS); give this, `agent_id` or `agent_ids`"),
    mode: z
      .enum(["single", "fleet"])
      .optional()
      .describe("with a pool: `single` (default) picks one device, `fleet` uses all of them at once"),
    tools: z.array(ToolName).max(64).optional().describe("with a pool: tools the chosen device must have"),
    conversation_id: Identifier.optional().describe("continue this conversation; unset: a new one"),
    text: z.string().min(1, "must not be empty").max(MAX_MESSAGE_TEXT),
    options: MessageOptions.optional().describe(
      "per-conversation loop settings within the deployment's bounds: max_iterations, tool_error_limit, " +
        "max_tokens, max_wall_ms, citations",
    ),
    reply_url: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//.test(u), "must be an http(s) URL")
      .optional()
      .describe("the final reply (with `reply_events`, every event) is POSTed here, signed"),
    reply_events: z.boolean().optional().describe("deliver every event to `reply_url`, not only the reply"),
  })
  .strict()
  .superRefine((m, ctx) => {
    const targets = [m.agent_id, m.agent_ids, m.pool].filter((t) => t !== undefined).length;
    if (targets !== 1) {
      ctx.addIssue({ code: "custom", path: ["agent_id"], message: "give exactly one of agent_id, agent_ids or pool" });
    }
    if (m.mode !== undefined && m.pool === undefined) {
      ctx.addIssue({ code: "custom", path: ["mode"], message: "mode goes with a pool" });
    }
    // A fleet offers every device's tools: there is no one device to pick by them.
    if (m.tools !== undefined && (m.agent_ids !== undefined || m.mode === "fleet")) {
      ctx.addIssue({ code: "custom", path: ["tools"], message: "tools goes with a pool that picks one device" });
    }
  });
export type MessageRequest = z.infer<typeof MessageRequest>;

/** `?wait=N`: seconds, 0-60. */
export const WaitQuery = z.coerce.number().int().min(0).max(60);

/** The 202 answer of `POST /v1/messages`. */
export const MessageAccepted = z.looseObject({
  conversation_id: z.string(),
  message_id: z.string(),
  agent_id: z.string().optional(),
});
export type MessageAccepted = z.infer<typeof MessageAccepted>;

export const ConversationStatus = z.enum(["idle", "running", "completed", "failed", "cancelled"]);
export type ConversationStatus = z.infer<typeof ConversationStatus>;

export const ToolCallSummary = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.unknown(),
  status: z.enum(["pending", "success", "error", "blocked"]),
  error_type: z.string().optional(),
  /**
   * The tool's own run time as the device (or the built-in) measured it: from the moment it was
   * dispatched to its result. Never includes the wait for approval (`approval_wait_ms`).
   */
  elapsed_ms: z.number().optional(),
  /** how long the call waited for an approval decision before it ran or was blocked; absent when none was needed */
  approval_wait_ms: z.number().optional(),
  /** who decided a call that needed approval: "person", "timeout" or "rule:<rule_id>" */
  decided_by: z.string().optional(),
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

/** RFC 9457 problem details (`application/problem+json`), as every 4xx/5xx of the API answers. */
export const Problem = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().optional(),
  /** each failing field of the request, by its path */
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type Problem = z.infer<typeof Problem>;
