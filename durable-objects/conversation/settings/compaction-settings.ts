import { z } from "zod";
import { intVar } from "../../../runtime/vars.js";
import type { LoopConfig } from "../core/loop-config.js";

/**
 * The vars that size a conversation's context: `LLM_CONTEXT_TOKENS` (the model's window; by default
 * the known window of `LLM_MODEL`), `COMPACT_AT` (the fraction of the window past which older turns
 * are summarized) and `KEEP_RECENT_TURNS`. Part of the conversation's settings
 * (conversation-settings.ts); the front door reads the window too, to refuse a message larger than it.
 */
export const CompactionVarsSchema = z.object({
  LLM_CONTEXT_TOKENS: intVar(1000, 10_000_000)
    .optional()
    .describe(
      "The model's context window; default: the known window of LLM_MODEL. Older turns are summarized past " +
        "COMPACT_AT of it (docs/long-lived.md); an unknown model without it is not compacted; a message " +
        "larger than it is a 413.",
    ),
  COMPACT_AT: z.coerce
    .number()
    .min(0.1)
    .max(0.95)
    .optional()
    .describe("Compact before a model call whose estimated input passes this fraction of the window (default 0.75)."),
  KEEP_RECENT_TURNS: intVar(0, 100).optional().describe("Latest turns kept word for word when compacting (default 4)."),
  /** read here only to look up its window; model-settings.ts owns it (and its description) */
  LLM_MODEL: z.string().optional(),
});

/**
 * Context windows of well-known models, in tokens, by name prefix (the longest prefix wins, so a
 * dated or provider-prefixed name still matches). A model not listed is not compacted unless
 * `LLM_CONTEXT_TOKENS` is set: guessing too small would summarize for nothing, too large would fail.
 */
const KNOWN_WINDOWS: [prefix: string, tokens: number][] = [
  ["gpt-4o", 128_000],
  ["gpt-4-turbo", 128_000],
  ["gpt-4.1", 1_047_576],
  ["gpt-4", 8_192],
  ["gpt-3.5-turbo", 16_385],
  ["gpt-5", 400_000],
  ["o1", 200_000],
  ["o3", 200_000],
  ["o4-mini", 200_000],
  ["claude-", 200_000],
  ["gemini-1.5", 1_000_000],
  ["gemini-2", 1_000_000],
  ["llama-3.1", 128_000],
  ["llama-3.2", 128_000],
  ["llama-3.3", 128_000],
  ["@cf/meta/llama-3.1-8b-instruct", 7_968],
  ["@cf/meta/llama-3.3-70b-instruct", 24_000],
  ["mistral-large", 128_000],
  ["qwen2.5", 32_768],
  ["deepseek-chat", 64_000],
];

/** The window of a model by its name (provider prefixes like `openai/` are ignored); null when unknown. */
export function knownContextWindow(model: string | undefined): number | null {
  if (!model) return null;
  const names = [model, model.slice(model.lastIndexOf("/") + 1)];
  let best: [string, number] | null = null;
  for (const [prefix, tokens] of KNOWN_WINDOWS) {
    if (names.some((n) => n.startsWith(prefix)) && (!best || prefix.length > best[0].length)) best = [prefix, tokens];
  }
  return best?.[1] ?? null;
}

export function compactionConfig(v: z.output<typeof CompactionVarsSchema>): Partial<LoopConfig> {
  const config: Partial<LoopConfig> = {};
  const window = v.LLM_CONTEXT_TOKENS ?? knownContextWindow(v.LLM_MODEL ?? "gpt-4o-mini");
  if (window !== null) config.context_tokens = window;
  if (v.COMPACT_AT !== undefined) config.compact_at = v.COMPACT_AT;
  if (v.KEEP_RECENT_TURNS !== undefined) config.keep_recent_turns = v.KEEP_RECENT_TURNS;
  return config;
}
