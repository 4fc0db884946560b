import OpenAI from "openai";
import type { Stream } from "openai/core/streaming";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
} from "openai/resources/chat/completions/completions";
import { toLlmError } from "./llm-errors.js";
import { chatRequestJson } from "./request-json.js";
import { capRetryAfter } from "./retry-after-cap.js";
import { fromCompletion, StreamAssembler } from "./stream-assembler.js";
import { textProtocolToolsFrom, toTextProtocolMessages } from "./text-protocol-prompts.js";
import { withTextToolCalls } from "./text-tool-calls.js";
import type { LlmCallOptions, LlmConfig, LlmError, LlmRequest, LlmResult, LlmTurn } from "./types.js";

/**
 * One model call against any OpenAI-compatible Chat Completions endpoint. Never throws: every
 * failure comes back as `{ ok: false, error }`.
 *
 * Retries are the openai client's: 408, 409, 429, 5xx and connection failures, exponential
 * backoff (0.5s doubling, max 8s, jitter) or the server's Retry-After / retry-after-ms. Its
 * Retry-After wait is uncapped, so longer waits are refused here (see retry-after-cap.ts).
 * Its timeout covers only the wait for response headers, so a stream that stalls afterwards
 * is cut by our own idle timer (same `timeoutMs`).
 *
 * The body goes to the client already serialized (request-json.ts: the history's JSON is made
 * once per message, not once per call); the client sends a string body as it is and still
 * retries it, and parses the answer as for `chat.completions.create`.
 */

export const LLM_DEFAULTS = {
  maxRetries: 3,
  timeoutMs: 120_000,
  stream: true,
  maxRetryAfterMs: 30_000,
  streamUsage: true,
} as const;

export async function callLlm(config: LlmConfig, request: LlmRequest, opts: LlmCallOptions = {}): Promise<LlmResult> {
  const timeoutMs = config.timeoutMs ?? LLM_DEFAULTS.timeoutMs;
  const maxRetryAfterMs = config.maxRetryAfterMs ?? LLM_DEFAULTS.maxRetryAfterMs;
  const idSeed = opts.idSeed ?? crypto.randomUUID().slice(0, 8);
  const tools = request.tools ?? [];
  const knownToolNames = tools.flatMap((t) => (t.type === "function" ? [t.function.name] : []));
  const textMode = config.toolProtocol === "text";

  const body: ChatCompletionCreateParamsBase = {
    model: config.model,
    messages: textMode ? toTextProtocolMessages(request.messages, textProtocolToolsFrom(tools)) : request.messages,
  };
  // Some servers reject an empty `tools` array (and tool_choice without tools).
  if (!textMode && tools.length > 0) {
    body.tools = tools;
    if (request.toolChoice !== undefined) body.tool_choice = request.toolChoice;
  }
  if (config.temperature !== undefined) body.temperature = config.temperature;

  let client: OpenAI;
  try {
    client = openAiClient(config, timeoutMs, maxRetryAfterMs, opts.fetch);
  } catch (e) {
    return {
      ok: false,
      error: { kind: "invalid_response", message: `bad LLM configuration: ${(e as Error).message}` },
    };
  }

  const onDelta = (text: string) => {
    if (!text || !opts.onDelta) return;
    try {
      opts.onDelta(text);
    } catch {
      // A failing listener must not lose the model's answer.
    }
  };

  const outcome =
    (config.stream ?? LLM_DEFAULTS.stream)
      ? await streamTurn(
          client,
          body,
          config.streamUsage ?? LLM_DEFAULTS.streamUsage,
          timeoutMs,
          idSeed,
          onDelta,
          opts.signal,
        )
      : await completeTurn(client, body, idSeed, onDelta, opts.signal);
  if (!outcome.ok) {
    const error = "thrown" in outcome.error ? toLlmError(outcome.error.thrown, maxRetryAfterMs) : outcome.error;
    return { ok: false, error };
  }
  return { ok: true, turn: withTextToolCalls(outcome.turn, knownToolNames, idSeed) };
}

/**
 * Clients are stateless between calls, so one per configuration is reused: building one on every
 * model call was a measurable part of a loop step. A caller's own `fetch` (tests) gets a fresh one.
 */
const clients = new Map<string, OpenAI>();
const MAX_CACHED_CLIENTS = 16;

function openAiClient(
  config: LlmConfig,
  timeoutMs: number,
  maxRetryAfterMs: number,
  customFetch: typeof fetch | undefined,
): OpenAI {
  const maxRetries = config.maxRetries ?? LLM_DEFAULTS.maxRetries;
  const make = () =>
    new OpenAI({
      baseURL: config.baseURL,
      // Local servers (Ollama, vLLM) need no key, but the client refuses to start without one.
      apiKey: config.apiKey || "unused",
      maxRetries,
      timeout: timeoutMs,
      fetch: capRetryAfter(customFetch ?? ((input, init) => fetch(input, init)), maxRetryAfterMs),
    });
  if (customFetch) return make();
  const key = JSON.stringify([config.baseURL, config.apiKey, maxRetries, timeoutMs, maxRetryAfterMs]);
  let client = clients.get(key);
  if (!client) {
    if (clients.size >= MAX_CACHED_CLIENTS) clients.clear();
    client = make();
    clients.set(key, client);
  }
  return client;
}

const JSON_BODY = { "content-type": "application/json" };

/** An error we classified already, or what the openai client threw (classified by the caller). */
type TurnOutcome = { ok: true; turn: LlmTurn } | { ok: false; error: LlmError | { thrown: unknown } };

async function streamTurn(
  client: OpenAI,
  body: ChatCompletionCreateParamsBase,
  streamUsage: boolean,
  idleMs: number,
  idSeed: string,
  onDelta: (text: string) => void,
  callerSignal: AbortSignal | undefined,
): Promise<TurnOutcome> {
  const controller = new AbortController();
  const abortFromCaller = () => controller.abort();
  callerSignal?.addEventListener("abort", abortFromCaller, { once: true });
  let stalled = false;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const armIdleTimer = () => {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      stalled = true;
      controller.abort();
    }, idleMs);
  };
  const assembler = new StreamAssembler(idSeed);
  try {
    const stream = await client.post<Stream<ChatCompletionChunk>>("/chat/completions", {
      body: chatRequestJson({
        ...body,
        stream: true,
        ...(streamUsage ? { stream_options: { include_usage: true } } : {}),
      }),
      headers: JSON_BODY,
      stream: true,
      signal: controller.signal,
    });
    armIdleTimer();
    for await (const chunk of stream) {
      armIdleTimer();
      onDelta(assembler.push(chunk));
    }
  } catch (e) {
    if (stalled) return { ok: false, error: stallError(idleMs) };
    return { ok: false, error: { thrown: e } };
  } finally {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    callerSignal?.removeEventListener("abort", abortFromCaller);
  }
  // The openai stream ends quietly when aborted, so the reason is ours to check.
  if (stalled) return { ok: false, error: stallError(idleMs) };
  if (callerSignal?.aborted) return { ok: false, error: { kind: "network", message: "LLM request aborted" } };
  if (!assembler.sawChoice) {
    return {
      ok: false,
      error: {
        kind: "invalid_response",
        message: `stream ended without a response (${assembler.chunkCount} chunks, no choices)`,
      },
    };
  }
  return { ok: true, turn: assembler.finish() };
}

async function completeTurn(
  client: OpenAI,
  body: ChatCompletionCreateParamsBase,
  idSeed: string,
  onDelta: (text: string) => void,
  signal: AbortSignal | undefined,
): Promise<TurnOutcome> {
  let completion: unknown;
  try {
    completion = await client.post<ChatCompletion>("/chat/completions", {
      body: chatRequestJson({ ...body, stream: false }),
      headers: JSON_BODY,
      ...(signal ? { signal } : {}),
    });
  } catch (e) {
    return { ok: false, error: { thrown: e } };
  }
  const converted = fromCompletion(completion, idSeed);
  if (!converted.ok) return { ok: false, error: { kind: "invalid_response", message: converted.error } };
  if (converted.turn.content) onDelta(converted.turn.content);
  return converted;
}

function stallError(idleMs: number): LlmError {
  return { kind: "timeout", message: `LLM stream stalled: no data for ${idleMs}ms` };
}
