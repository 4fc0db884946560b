import { z } from "zod";
import { ImageRef } from "./content-blocks.js";

/**
 * The API's answers, as far as clients read them: the CLI validates what it gets with these, and the
 * OpenAPI document (worker/openapi/) describes the routes' responses with them. Loose objects:
 * extra fields are fine (the server may add some), missing or mistyped ones are an error worth
 * reporting.
 */
export const Device = z.looseObject({
  agent_id: z.string(),
  online: z.boolean(),
  last_seen: z.number().nullable().optional(),
  version: z.string().nullable().optional(),
  tools: z.array(z.string()).default([]),
  /** an OpenClaw device key of this id is revoked, refused until an admin clears it */
  revoked: z.boolean().optional(),
});
export const DeviceList = z.looseObject({ devices: z.array(Device) });

export const ConversationRow = z.looseObject({
  conversation_id: z.string(),
  agent_id: z.string(),
  status: z.string(),
  created_at: z.number(),
  updated_at: z.number(),
  last_text: z.string().nullable(),
});
export const ConversationList = z.looseObject({ conversations: z.array(ConversationRow) });

export const PendingCall = z.looseObject({
  id: z.string(),
  name: z.string(),
  state: z.string(),
  args: z.unknown(),
  question: z.string().optional().describe("a remote MCP server's question waiting during the call (docs/mcp.md)"),
  options: z.array(z.string()).optional().describe("the question's suggested answers"),
});
export const ConversationView = z.looseObject({
  conversation_id: z.string(),
  agent_id: z.string(),
  status: z.string(),
  messages: z.array(
    z.looseObject({
      role: z.string(),
      content: z.unknown().optional(),
      tool_calls: z
        .array(z.looseObject({ id: z.string(), function: z.looseObject({ name: z.string(), arguments: z.string() }) }))
        .optional(),
      tool_call_id: z.string().optional(),
      images: z
        .array(ImageRef)
        .optional()
        .describe("images the message carries, stored once each and fetched at their `url` (docs/images.md)"),
    }),
  ),
  pending_tool_calls: z.array(PendingCall),
  // Optional: a worker from before the history was paged sends the whole history without them.
  messages_from: z.number().optional().describe("the number of `messages[0]` in the history (history-page.ts)"),
  messages_total: z.number().optional().describe("how many messages the history has; `messages` is a page of them"),
  trace_id: z
    .string()
    .nullable()
    .optional()
    .describe("The W3C trace id of the latest run: its spans, its device commands' and MCP calls' `traceparent`"),
});

export const AuditEntry = z.looseObject({
  timestamp: z.string(),
  agent_id: z.string(),
  tool: z.string(),
  parameters: z.unknown(),
  result: z.string(),
  error_type: z.string().nullable().optional(),
  exit_code: z.number().nullable().optional(),
  elapsed_ms: z.number().nullable().optional(),
  request_id: z.string(),
  conversation_id: z.string().nullable().optional(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;
export const AuditPage = z.looseObject({ entries: z.array(AuditEntry) });

const Distribution = z.looseObject({
  count: z.number(),
  avg: z.number(),
  p50: z.number(),
  p95: z.number(),
  p99: z.number(),
  max: z.number(),
});
export const ToolMetrics = z.looseObject({
  tool: z.string(),
  total_calls: z.number(),
  success_count: z.number(),
  error_count: z.number(),
  errors_by_type: z.record(z.string(), z.number()),
  timeout_count: z.number(),
  latency_ms: Distribution,
  last_error: z.string().nullable(),
  last_error_time: z.string().nullable(),
});
export const MetricsReport = z.looseObject({
  generated_at: z.string(),
  since: z.string(),
  tools: z.looseObject({ overall: z.array(ToolMetrics), by_device: z.record(z.string(), z.array(ToolMetrics)) }),
  loop: z.looseObject({
    conversations: z.number(),
    by_status: z.record(z.string(), z.number()),
    stopped_by: z.record(z.string(), z.number()),
    time_to_reply_ms: Distribution,
    iterations: Distribution,
    tool_calls_per_conversation: Distribution,
    by_model: z.record(
      z.string(),
      z.looseObject({
        conversations: z.number(),
        tokens_in: z.number(),
        tokens_out: z.number(),
        estimated_cost_usd: z.number().nullable(),
      }),
    ),
  }),
});
export type MetricsReport = z.infer<typeof MetricsReport>;

export const IssuedToken = z.looseObject({
  agent_id: z.string(),
  token_id: z.string(),
  token: z.string(),
  created_at: z.number().optional(),
});
export const TokenList = z.looseObject({
  agent_id: z.string(),
  tokens: z.array(
    z.looseObject({ token_id: z.string(), created_at: z.number(), last_used_at: z.number().nullable().optional() }),
  ),
});
export const TokenRevoked = z.looseObject({
  agent_id: z.string(),
  token_id: z.string(),
  revoked: z.boolean(),
  sockets_closed: z.number().optional(),
});

export const RevokedKey = z.looseObject({ device_id: z.string(), revoked_at: z.number(), why: z.string() });
export const RevokedKeysCleared = z.looseObject({ agent_id: z.string(), cleared: z.array(RevokedKey) });

export const Decision = z.looseObject({ conversation_id: z.string(), tool_call_id: z.string() });
