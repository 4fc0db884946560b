import { z } from "zod";
import { OutboundVarsSchema, outboundPolicy } from "../../../runtime/outbound-settings.js";
import type { OutboundUrlPolicy } from "../../../runtime/outbound-url.js";
import { RestartWindowVarsSchema } from "../../../runtime/restart-window.js";
import { intVar, jsonVar, oncePerEnv, type Parsed, parseVars, type VarsOf } from "../../../runtime/vars.js";
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
  MAX_ITERATIONS: intVar(1, 100).optional(),
  TOOL_ERROR_LIMIT: intVar(1, 100).optional(),
  MAX_PARALLEL: intVar(1, 64).optional(),
  MAX_RESULT_CHARS: intVar(256, 1_000_000).optional(),
  SYSTEM_PROMPT: z.string().optional(),
  TOOL_POLICIES: Policies.optional(),
  TOOL_DENY_PATTERNS: jsonVar(z.record(z.string(), regexList)).optional(),
  TOOL_PARAM_OVERRIDES: jsonVar(z.record(z.string(), z.record(z.string(), z.unknown()))).optional(),
  REDACT_PATTERNS: jsonVar(regexList).optional(),
  MAX_TOKENS_PER_CONVERSATION: intVar(1, 100_000_000).optional(),
  MAX_WALL_MS: intVar(1000, 7 * 24 * 3600 * 1000).optional(),
  CITATIONS: z.enum(["true", "false"]).optional(),
  APPROVAL_TIMEOUT_MS: intVar(1000, 30 * 24 * 3600 * 1000).optional(),
  QUESTION_TIMEOUT_MS: intVar(1000, 30 * 24 * 3600 * 1000).optional(),
});

const ConversationVarsSchema = LoopVarsSchema.extend(CompactionVarsSchema.shape)
  .extend(OutboundVarsSchema.shape)
  .extend(RestartWindowVarsSchema.shape)
  .extend({
    WEBHOOK_TOOLS: z.string().optional(),
    MCP_SERVERS: z.string().optional(),
    REPLY_SIGNING_SECRET: z.string().optional(),
    WEBHOOK_SECRETS: WebhookSecrets,
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
};

/** Parsed once per isolate; a bad var refuses messages (500) naming it. */
export const conversationSettings = oncePerEnv((env: ConversationVars): Parsed<ConversationSettings> => {
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
