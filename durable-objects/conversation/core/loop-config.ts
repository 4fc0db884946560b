/** The limits and hooks of one conversation's loop: the defaults, over which the deployment's vars and a message's options are laid. */
export type LoopConfig = {
  max_iterations: number;
  tool_error_limit: number;
  max_parallel: number;
  /** tool result text above this many characters is cut, with a note to the model */
  max_result_chars: number;
  /** added to the conversation's first message, if set */
  system_prompt: string | null;
  /** backstop deadline beyond a call's own timeout, in case the hub never answers */
  tool_deadline_grace_ms: number;
  /** how long an approval-required call waits for a person before it is blocked */
  approval_timeout_ms: number;
  /** how long a `question` waits for the user's answer */
  question_timeout_ms: number;
  /** tool name (or "*") → policy, overriding the tool's own */
  policies: Record<string, "auto" | "requires_approval">;
  /** before_tool_call: tool name (or "*") → regexes over the JSON arguments that block the call */
  deny_patterns: Record<string, string[]>;
  /** before_tool_call: tool name → parameters forced onto every call */
  param_overrides: Record<string, Record<string, unknown>>;
  /** tool_result_persist: regexes whose matches are replaced by [REDACTED] before storing */
  redact_patterns: string[];
  /** per-conversation budget; null = unlimited */
  max_tokens: number | null;
  max_wall_ms: number | null;
  /** append "Sources: tool1, tool2" to answers that used tools */
  citations: boolean;
  /** the model's context window in tokens; null = never compact (see compaction.ts) */
  context_tokens: number | null;
  /** compact before a model call whose estimated input passes this fraction of the window */
  compact_at: number;
  /** how many of the latest turns (a user message and what followed it) stay word for word */
  keep_recent_turns: number;
};

/** Secrets that must never be stored in the history, whatever the tool printed. */
export const DEFAULT_REDACT_PATTERNS = [
  "sk-[A-Za-z0-9_-]{16,}",
  "AKIA[0-9A-Z]{16}",
  "gh[pousr]_[A-Za-z0-9]{30,}",
  "xox[abpr]-[A-Za-z0-9-]{10,}",
  "-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]*?-----END [A-Z ]*PRIVATE KEY-----",
  "(?<=[Bb]earer )[A-Za-z0-9._~+/=-]{16,}",
];

export const DEFAULT_LOOP_CONFIG: LoopConfig = {
  max_iterations: 10,
  tool_error_limit: 3,
  max_parallel: 5,
  max_result_chars: 32_000,
  system_prompt: null,
  tool_deadline_grace_ms: 15_000,
  approval_timeout_ms: 60 * 60 * 1000,
  question_timeout_ms: 24 * 60 * 60 * 1000,
  policies: {},
  deny_patterns: {},
  param_overrides: {},
  redact_patterns: DEFAULT_REDACT_PATTERNS,
  max_tokens: null,
  max_wall_ms: null,
  citations: false,
  context_tokens: null,
  compact_at: 0.75,
  keep_recent_turns: 4,
};
