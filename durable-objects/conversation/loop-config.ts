import { z } from "zod";
import type { Env } from "../../worker/env.js";
import { DEFAULT_REDACT_PATTERNS } from "./core/hooks.js";
import type { LoopConfig } from "./core/types.js";

/** Loop settings from the deployment's vars. Parsed where used, so a bad value names itself. */
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const json = <T extends z.ZodTypeAny>(schema: T) =>
  z.string().transform((raw, ctx) => {
    try {
      return schema.parse(JSON.parse(raw)) as z.infer<T>;
    } catch (e) {
      ctx.addIssue({
        code: "custom",
        message: `not valid JSON of the expected shape: ${(e as Error).message.slice(0, 200)}`,
      });
      return z.NEVER;
    }
  });
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

const LoopVars = z.object({
  MAX_ITERATIONS: int(1, 100).optional(),
  TOOL_ERROR_LIMIT: int(1, 100).optional(),
  MAX_PARALLEL: int(1, 64).optional(),
  MAX_RESULT_CHARS: int(256, 1_000_000).optional(),
  SYSTEM_PROMPT: z.string().optional(),
  TOOL_POLICIES: Policies.optional(),
  TOOL_DENY_PATTERNS: json(z.record(z.string(), regexList)).optional(),
  TOOL_PARAM_OVERRIDES: json(z.record(z.string(), z.record(z.string(), z.unknown()))).optional(),
  REDACT_PATTERNS: json(regexList).optional(),
  MAX_TOKENS_PER_CONVERSATION: int(1, 100_000_000).optional(),
  MAX_WALL_MS: int(1000, 7 * 24 * 3600 * 1000).optional(),
  CITATIONS: z.enum(["true", "false"]).optional(),
  APPROVAL_TIMEOUT_MS: int(1000, 30 * 24 * 3600 * 1000).optional(),
  QUESTION_TIMEOUT_MS: int(1000, 30 * 24 * 3600 * 1000).optional(),
});

export type LoopConfigResult = { ok: true; config: Partial<LoopConfig> } | { ok: false; error: string };

export function loopConfigFromEnv(env: Env): LoopConfigResult {
  const raw = Object.fromEntries(Object.entries(env).filter(([, v]) => typeof v === "string" && v !== ""));
  const parsed = LoopVars.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, error: `${issue.path.join(".")}: ${issue.message}` };
  }
  const v = parsed.data;
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
  return { ok: true, config };
}

function isRegex(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}
