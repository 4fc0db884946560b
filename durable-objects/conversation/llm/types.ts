import type { ChatCompletionTool, ChatCompletionToolChoiceOption } from "openai/resources/chat/completions";
import type { ChatMessage, LlmTurn } from "../core/types.js";

/**
 * The conversation's messages and the model's answer are the loop core's own types (the shapes
 * Chat Completions uses, kept minimal so the core needs no SDK types); they are re-exported here
 * for the clients that send and assemble them.
 */
export type { ChatMessage, LlmToolCall, LlmTurn, LlmUsage, MessageImage } from "../core/types.js";
export type ChatTool = ChatCompletionTool;
export type ChatToolChoice = ChatCompletionToolChoiceOption;

/** Which API the model is reached through; each has its adapter (docs/providers.md). */
export type LlmProvider = "openai" | "anthropic" | "workers-ai";

/**
 * The Workers AI binding (`env.AI`) as the adapter uses it: only `run`, so this layer needs no
 * Cloudflare types and tests can hand it a stand-in.
 */
export interface AiRunner {
  run(model: string, inputs: Record<string, unknown>, options?: Record<string, unknown>): Promise<unknown>;
}

export type LlmConfig = {
  /** Default "openai". */
  provider?: LlmProvider;
  /**
   * openai: the Chat Completions base URL (required). anthropic: the API's base URL without
   * `/v1` (default https://api.anthropic.com). An AI Gateway URL works for both.
   */
  baseURL?: string;
  apiKey?: string;
  model: string;
  /** Retries of 408/409/429/5xx (529 included) and connection failures. Default 3. */
  maxRetries?: number;
  /** Per attempt until response headers, then the longest silence allowed inside a stream. */
  timeoutMs?: number;
  /** Default true. */
  stream?: boolean;
  /** "text": the model has no native tool calling; tools are described in the system prompt. */
  toolProtocol?: "native" | "text";
  /**
   * Longest Retry-After we sleep through inside one call (default 30000). A server asking for
   * longer gets no in-call retry: the error comes back with `retryAfterMs` so the caller can
   * schedule the retry (a DO alarm) instead of holding the request open.
   */
  maxRetryAfterMs?: number;
  /** Send `stream_options.include_usage` (default true); a few servers reject the field. */
  streamUsage?: boolean;
  temperature?: number;
  /** The answer's token cap: anthropic requires one (default 8192); workers-ai (default 4096). */
  maxTokens?: number;
  /** anthropic: cache breakpoints on the tools, the system prompt and the history (default true). */
  promptCaching?: boolean;
  /** `cf-aig-authorization: Bearer …` on each request, for an authenticated AI Gateway. */
  gatewayToken?: string;
  /** workers-ai: the binding's `env.AI` */
  ai?: AiRunner;
  /** workers-ai: send the binding's calls through this AI Gateway */
  gatewayId?: string;
};

export type LlmRequest = {
  messages: ChatMessage[];
  tools?: ChatTool[];
  toolChoice?: ChatToolChoice;
};

export type LlmCallOptions = {
  /**
   * Seed for ids given to tool calls that came without one: `call_<seed>_<index>`. Pass something
   * stable per LLM call (conversation id + iteration) so a retried call yields the same ids.
   */
  idSeed?: string;
  fetch?: typeof fetch;
  onDelta?: (text: string) => void;
  signal?: AbortSignal;
};

export type LlmErrorKind = "http" | "network" | "timeout" | "invalid_response";

export type LlmError = {
  kind: LlmErrorKind;
  status?: number;
  message: string;
  /** The server's Retry-After when it was longer than we wait in-call (see maxRetryAfterMs). */
  retryAfterMs?: number;
};

export type LlmResult = { ok: true; turn: LlmTurn } | { ok: false; error: LlmError };
