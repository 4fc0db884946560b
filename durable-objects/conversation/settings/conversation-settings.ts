import type { Result } from "@edgeloop/protocol/result";
import { z } from "zod";
import { OutboundVarsSchema, outboundPolicy } from "../../../runtime/outbound-settings.js";
import type { OutboundUrlPolicy } from "../../../runtime/outbound-url.js";
import { RestartWindowVarsSchema } from "../../../runtime/restart-window.js";
import { intVar, jsonVar, oncePerEnv, parseVars, type VarsOf } from "../../../runtime/vars.js";
import { WebhookSecrets } from "../../../runtime/webhook-secrets.js";
import { parseWebhookTools, type WebhookTool } from "../builtins/webhook-tools.js";
import type { LoopConfig } from "../core/loop-config.js";
import { DEFAULT_REDACT_PATTERNS } from "../core/loop-config.js";
import { type McpServerConfig, parseMcpServers } from "../mcp/mcp-servers-config.js";
import { CompactionVarsSchema, compactionConfig } from "./compaction-settings.js";

const regexList = z.array(z.string().refine((p) => isRegex(p), "not a valid regular expression"));

/** `bash:requires_approval,git_commit:requires_approval` or JSON `{"bash":"requires_approval"}` */
const Policies = z.string().transform((raw, ctx) => {
  const trimmed = raw.trim();
  const entries: [string, string][] = trimmed.startsWith("{")
    ? Object.entries(JSON.parse(trimmed) as Record<string, string>)
    : trimmed
        .split(",")
        .filter(Boolean)
        .map((e) => e.split(":").map((s) => s.trim()) as [string, string]);
  const out: Record<string, "auto" | "requires_approval"> = {};
  for (const [tool, policy] of entries) {
    if (policy !== "auto" && policy !== "requires_approval") {
      ctx.addIssue({ code: "custom", message: `policy for '${tool}' must be auto or requires_approval` });
      return z.NEVER;
    }
    out[tool] = policy;
  }
  return out;
});

const LoopVarsSchema = z.object({
  MAX_ITERATIONS: intVar(1, 100)
    .optional()
    .describe("Tool rounds per message before the loop stops and asks the model to summarise (default 10)."),
  TOOL_ERROR_LIMIT: intVar(1, 100)
    .optional()
    .describe("Consecutive all-failed tool rounds before the loop stops (default 3)."),
  MAX_PARALLEL: intVar(1, 64).optional().describe("Tool calls of one response in flight at once (default 5)."),
  MAX_RESULT_CHARS: intVar(256, 1_000_000)
    .optional()
    .describe("Tool result text given to the model; longer is cut with a note (default 32000)."),
  SYSTEM_PROMPT: z.string().optional().describe("System message at the start of each conversation."),
  TOOL_POLICIES: Policies.optional().describe(
    "Approval policies (`auto` / `requires_approval`): `bash:requires_approval,git_commit:requires_approval` " +
      "(or JSON; `*` for every tool). A call that requires approval waits, durably, for " +
      "`POST …/approvals/:tool_call_id`.",
  ),
  TOOL_DENY_PATTERNS: jsonVar(z.record(z.string(), regexList))
    .optional()
    .describe(
      'before_tool_call hook: JSON `{"bash":["curl .*[|] *sh"]}`: regexes over a call\'s arguments that block it.',
    ),
  TOOL_PARAM_OVERRIDES: jsonVar(z.record(z.string(), z.record(z.string(), z.unknown())))
    .optional()
    .describe('before_tool_call hook: JSON `{"read":{"limit":200}}`: parameters forced onto every call of a tool.'),
  REDACT_PATTERNS: jsonVar(regexList)
    .optional()
    .describe(
      "tool_result_persist hook: JSON array of regexes redacted from stored results and events, on top of the " +
        "built-in secret patterns (`sk-…`, AWS keys, GitHub tokens, private keys, bearer tokens).",
    ),
  MAX_TOKENS_PER_CONVERSATION: intVar(1, 100_000_000)
    .optional()
    .describe("Token budget per message's run; at the cap the model gets one last call without tools."),
  MAX_WALL_MS: intVar(1000, 7 * 24 * 3600 * 1000)
    .optional()
    .describe("Wall-time budget per message's run; running tools are cancelled at the cap."),
  CITATIONS: z
    .enum(["true", "false"])
    .optional()
    .describe("`true`: append `Sources: tool1, tool2` to answers that used tools (default false)."),
  APPROVAL_TIMEOUT_MS: intVar(1000, 30 * 24 * 3600 * 1000)
    .optional()
    .describe(
      "How long a call waits for approval before it is blocked (default 3600000); the tool's own timeout " +
        "starts at dispatch.",
    ),
  QUESTION_TIMEOUT_MS: intVar(1000, 30 * 24 * 3600 * 1000)
    .optional()
    .describe("How long the `question` tool waits for `POST …/answers/:tool_call_id` (default 86400000)."),
});

export const ConversationVarsSchema = LoopVarsSchema.extend(CompactionVarsSchema.shape)
  .extend(OutboundVarsSchema.shape)
  .extend(RestartWindowVarsSchema.shape)
  .extend({
    WEBHOOK_TOOLS: z
      .string()
      .optional()
      .describe(
        "Webhook tools the orchestrator calls itself: JSON array of `{name, description, parameters, url, method, " +
          "headers, timeout_secs, max_retries, policy, secret}`; requests are signed " +
          "(`X-Webhook-Signature`, `X-Webhook-Timestamp`).",
      ),
    MCP_SERVERS: z
      .string()
      .optional()
      .describe(
        "Remote MCP servers whose tools conversations use as `{name}__{tool}`: JSON array of `{name, url, headers, " +
          "bearer, allowed_tools, policy, timeout_secs, max_retries, elicitation_timeout_secs, oauth}`; `oauth` servers " +
          "are connected with `edgeloop mcp connect <name>` (docs/mcp.md).",
      ),
    REPLY_SIGNING_SECRET: z
      .string()
      .optional()
      .describe(
        "Secret. Signs `reply_url` deliveries (hmac and Standard Webhooks headers); unset: the first " +
          "WEBHOOK_SECRETS secret.",
      ),
    WEBHOOK_SECRETS: WebhookSecrets,
    TRACE_TOOL_CONTENT: z
      .enum(["true", "false"])
      .default("false")
      .describe(
        "`true`: trace spans carry tool calls' arguments and results (`gen_ai.tool.call.arguments` / `.result`, " +
          "cut at 4000 characters). Off by default: they may hold secrets (docs/tracing.md).",
      ),
  });

/** The vars a conversation reads for its loop, its webhook tools and its reply deliveries. */
export type ConversationVars = VarsOf<typeof ConversationVarsSchema.shape>;

export type ConversationSettings = {
  /** the deployment's loop limits and hooks, over the defaults */
  loop: Partial<LoopConfig>;
  webhookTools: WebhookTool[];
  /** remote MCP servers whose tools conversations may use */
  mcpServers: McpServerConfig[];
  /** what reply_url deliveries, webhook tools and MCP servers may reach (runtime/outbound-url.ts) */
  outbound: OutboundUrlPolicy;
  /** signs reply_url deliveries: REPLY_SIGNING_SECRET, else the first inbound webhook secret */
  replySigningSecret: string | null;
  /** the device hub's reconnect window after a restart (runtime/restart-window.ts) */
  reconnectWindowMs: number;
  /** trace spans carry tool arguments and results (TRACE_TOOL_CONTENT) */
  traceToolContent: boolean;
};

/** Parsed once per isolate; a bad var refuses messages (500) naming it. */
export const conversationSettings = oncePerEnv((env: ConversationVars): Result<ConversationSettings> => {
  const vars = parseVars(ConversationVarsSchema, env);
  if (!vars.ok) return vars;
  const v = vars.value;
  const webhooks = parseWebhookTools(v.WEBHOOK_TOOLS);
  if (!webhooks.ok) return { ok: false, error: `WEBHOOK_TOOLS: ${webhooks.error}` };
  const mcpServers = parseMcpServers(v.MCP_SERVERS);
  if (!mcpServers.ok) return { ok: false, error: `MCP_SERVERS: ${mcpServers.error}` };
  return {
    ok: true,
    value: {
      loop: { ...loopConfig(v), ...compactionConfig(v) },
      webhookTools: webhooks.tools,
      mcpServers: mcpServers.value,
      outbound: outboundPolicy(v),
      replySigningSecret: v.REPLY_SIGNING_SECRET ?? v.WEBHOOK_SECRETS[0]?.secret ?? null,
      reconnectWindowMs: v.DEVICE_RECONNECT_WINDOW_MS,
      traceToolContent: v.TRACE_TOOL_CONTENT === "true",
    },
  };
});

function loopConfig(v: z.output<typeof LoopVarsSchema>): Partial<LoopConfig> {
  const config: Partial<LoopConfig> = {};
  if (v.MAX_ITERATIONS !== undefined) config.max_iterations = v.MAX_ITERATIONS;
  if (v.TOOL_ERROR_LIMIT !== undefined) config.tool_error_limit = v.TOOL_ERROR_LIMIT;
  if (v.MAX_PARALLEL !== undefined) config.max_parallel = v.MAX_PARALLEL;
  if (v.MAX_RESULT_CHARS !== undefined) config.max_result_chars = v.MAX_RESULT_CHARS;
  if (v.SYSTEM_PROMPT !== undefined) config.system_prompt = v.SYSTEM_PROMPT;
  if (v.TOOL_POLICIES) config.policies = v.TOOL_POLICIES;
  if (v.TOOL_DENY_PATTERNS) config.deny_patterns = v.TOOL_DENY_PATTERNS;
  if (v.TOOL_PARAM_OVERRIDES) config.param_overrides = v.TOOL_PARAM_OVERRIDES;
  // Deployment patterns add to the built-in secret patterns; they never replace them.
  if (v.REDACT_PATTERNS) config.redact_patterns = [...DEFAULT_REDACT_PATTERNS, ...v.REDACT_PATTERNS];
  if (v.MAX_TOKENS_PER_CONVERSATION !== undefined) config.max_tokens = v.MAX_TOKENS_PER_CONVERSATION;
  if (v.MAX_WALL_MS !== undefined) config.max_wall_ms = v.MAX_WALL_MS;
  if (v.CITATIONS) config.citations = v.CITATIONS === "true";
  if (v.APPROVAL_TIMEOUT_MS !== undefined) config.approval_timeout_ms = v.APPROVAL_TIMEOUT_MS;
  if (v.QUESTION_TIMEOUT_MS !== undefined) config.question_timeout_ms = v.QUESTION_TIMEOUT_MS;
  return config;
}

function isRegex(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}
