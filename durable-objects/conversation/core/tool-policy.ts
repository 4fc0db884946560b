import type { LoopConfig } from "./loop-config.js";
import type { CallOutcome } from "./types.js";

/**
 * The deployment's tool policy, pure so it is testable and replays the same way: before a call,
 * a deny-list of patterns per tool can block it and fixed overrides can rewrite its parameters
 * (OpenClaw's `before_tool_call` hook); before a result is stored, secrets are redacted (its
 * `tool_result_persist`); and each tool's approval policy. Not to be confused with named hooks,
 * the inbound webhooks of worker/hooks/.
 */
export type BeforeToolCall = { action: "allow"; args: Record<string, unknown> } | { action: "block"; reason: string };

export function beforeToolCall(config: LoopConfig, tool: string, args: Record<string, unknown>): BeforeToolCall {
  const text = JSON.stringify(args);
  for (const pattern of [...(config.deny_patterns[tool] ?? []), ...(config.deny_patterns["*"] ?? [])]) {
    const re = safeRegex(pattern);
    if (re?.test(text)) return { action: "block", reason: `Tool blocked by policy: arguments match /${pattern}/` };
  }
  const overrides = config.param_overrides[tool];
  return { action: "allow", args: overrides ? { ...args, ...overrides } : args };
}

/**
 * Text as the model reads it: every match of every redaction pattern replaced. A match of no
 * characters hides nothing and is left alone: a pattern such as `a*` or `\b` would otherwise put
 * the marker between every two characters, and each such pattern would multiply the text.
 */
export function redactForPersist(config: LoopConfig, text: string): string {
  let out = text;
  for (const pattern of config.redact_patterns) {
    const re = safeRegex(pattern, "g");
    if (re) out = out.replace(re, (match) => (match === "" ? match : "[REDACTED]"));
  }
  return out;
}

/**
 * An outcome as it is stored and shown (events, a direct call's reply): each of its texts redacted
 * as a value, never its JSON text. Run over serialized JSON, a pattern such as `Bearer \S+` eats
 * the closing quote and what follows, and the text no longer parses (docs/architecture.md#the-loops-rules-beyond-the-basics).
 * The fields that say what the outcome is (`status`, `tool`, `error_type`, the numbers) and the
 * images (bytes and stored references, no text a person wrote) are kept, so that no pattern can
 * make an outcome the loop and its clients cannot read.
 */
export function redactOutcome<T extends CallOutcome>(config: LoopConfig, outcome: T): T {
  const out: Record<string, unknown> = { ...outcome };
  for (const key of REDACTED_FIELDS) {
    const value = out[key];
    if (typeof value === "string") out[key] = redactForPersist(config, value);
  }
  // Any outcome that carries content has its text redacted: only a success should, but none escapes unredacted.
  if ("content" in outcome && outcome.content)
    out.content = outcome.content.map((b) =>
      b.type === "text" ? { ...b, text: redactForPersist(config, b.text) } : b,
    );
  return out as T;
}

/** The free text of an outcome: what the tool printed, why it failed, why it was refused. */
const REDACTED_FIELDS = ["result", "stderr", "error", "reason"] as const;

export function policyFor(
  config: LoopConfig,
  tool: string,
  specPolicy: "auto" | "requires_approval" | undefined,
): "auto" | "requires_approval" {
  return config.policies[tool] ?? config.policies["*"] ?? specPolicy ?? "auto";
}

/**
 * Config is validated where it enters; a pattern that still fails to compile is skipped, not fatal.
 * Compiled once per pattern: the redaction patterns run over every tool result. (Reusing a global
 * regex is safe with `replace`, which starts from and resets `lastIndex` itself.)
 */
const compiled = new Map<string, RegExp | null>();
const MAX_COMPILED = 256;

export function safeRegex(pattern: string, flags = ""): RegExp | null {
  const key = `${flags}/${pattern}`;
  let re = compiled.get(key);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, flags);
    } catch {
      re = null;
    }
    // A bound on memory only: clearing sooner, later or never gives the same answers.
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, re);
  }
  return re;
}
