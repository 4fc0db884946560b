import type { ChatMessage, ChatTool, ChatToolChoice, LlmError, LlmTurn } from "./types.js";

/**
 * One model call as callLlm (llm-client.ts) hands it to a provider's adapter: the history in the
 * core's one message format (already rewritten for the text protocol when that is on), the
 * tools to offer, and the settings every adapter shares, with defaults applied.
 */
export type PreparedCall = {
  messages: ChatMessage[];
  /** empty: offer no tools (text protocol, or a call the loop makes without tools) */
  tools: ChatTool[];
  toolChoice?: ChatToolChoice | undefined;
  /** seed for the ids of tool calls that came without one (generatedCallId) */
  idSeed: string;
  stream: boolean;
  maxRetries: number;
  timeoutMs: number;
  maxRetryAfterMs: number;
  /** the answer's text as it arrives; never throws */
  onDelta: (text: string) => void;
  signal?: AbortSignal | undefined;
  fetch?: typeof fetch | undefined;
};

/** What an adapter answers: the turn in the core's terms, or a classified error. */
export type ProviderOutcome = { ok: true; turn: LlmTurn } | { ok: false; error: LlmError };
