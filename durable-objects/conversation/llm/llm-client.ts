import { callAnthropic } from "./anthropic-client.js";
import { callOpenAi } from "./openai-client.js";
import type { PreparedCall, ProviderOutcome } from "./provider-call.js";
import { textProtocolToolsFrom, toTextProtocolMessages } from "./text-protocol-prompts.js";
import { withTextToolCalls } from "./text-tool-calls.js";
import type { LlmCallOptions, LlmConfig, LlmRequest, LlmResult } from "./types.js";
import { callWorkersAi } from "./workers-ai-client.js";

/**
 * One model call, whichever provider the config names (`openai`, `anthropic`, `workers-ai`).
 * Never throws: every failure comes back as `{ ok: false, error }`.
 *
 * The parts every provider shares live here: the history stays in the core's one message format
 * and each adapter translates it to and from its API; the text protocol (tools described in the
 * prompt, calls read back from the text) works the same for all of them; so does reading calls a
 * model wrote as text while native tools were offered.
 */

export const LLM_DEFAULTS = {
  maxRetries: 3,
  timeoutMs: 120_000,
  stream: true,
  maxRetryAfterMs: 30_000,
  streamUsage: true,
} as const;

export async function callLlm(config: LlmConfig, request: LlmRequest, opts: LlmCallOptions = {}): Promise<LlmResult> {
  const tools = request.tools ?? [];
  const knownToolNames = tools.flatMap((t) => (t.type === "function" ? [t.function.name] : []));
  const textMode = config.toolProtocol === "text";
  const call: PreparedCall = {
    messages: textMode ? toTextProtocolMessages(request.messages, textProtocolToolsFrom(tools)) : request.messages,
    tools: textMode ? [] : tools,
    toolChoice: textMode ? undefined : request.toolChoice,
    idSeed: opts.idSeed ?? crypto.randomUUID().slice(0, 8),
    stream: config.stream ?? LLM_DEFAULTS.stream,
    maxRetries: config.maxRetries ?? LLM_DEFAULTS.maxRetries,
    timeoutMs: config.timeoutMs ?? LLM_DEFAULTS.timeoutMs,
    maxRetryAfterMs: config.maxRetryAfterMs ?? LLM_DEFAULTS.maxRetryAfterMs,
    onDelta: (text) => {
      if (!text || !opts.onDelta) return;
      try {
        opts.onDelta(text);
      } catch {
        // A failing listener must not lose the model's answer.
      }
    },
    signal: opts.signal,
    fetch: opts.fetch,
  };
  const outcome = await byProvider(config, call);
  if (!outcome.ok) return outcome;
  return { ok: true, turn: withTextToolCalls(outcome.turn, knownToolNames, call.idSeed) };
}

function byProvider(config: LlmConfig, call: PreparedCall): Promise<ProviderOutcome> {
  switch (config.provider ?? "openai") {
    case "openai":
      return callOpenAi(config, call);
    case "anthropic":
      return callAnthropic(config, call);
    case "workers-ai":
      return callWorkersAi(config, call);
  }
}
