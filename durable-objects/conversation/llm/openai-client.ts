import OpenAI from "openai";
import type { Stream } from "openai/core/streaming";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
} from "openai/resources/chat/completions/completions";
import { ClientCache } from "./client-cache.js";
import { chatCompletionsMessages } from "./image-parts.js";
import { toLlmError } from "./llm-errors.js";
import type { PreparedCall, ProviderOutcome } from "./provider-call.js";
import { chatRequestJson } from "./request-json.js";
import { capRetryAfter } from "./retry-after-cap.js";
import { fromCompletion, StreamAssembler } from "./stream-assembler.js";
import { readStream } from "./stream-reader.js";
import type { LlmConfig } from "./types.js";

/**
 * The `openai` provider: any OpenAI-compatible Chat Completions endpoint, through the `openai`
 * package.
 *
 * Retries are the openai client's: 408, 409, 429, 5xx and connection failures, exponential
 * backoff (0.5s doubling, max 8s, jitter) or the server's Retry-After / retry-after-ms. Its
 * Retry-After wait is uncapped, so longer waits are refused here (see retry-after-cap.ts).
 *
 * The body goes to the client already serialized (request-json.ts: the history's JSON is made
 * once per message, not once per call); the client sends a string body as it is and still
 * retries it, and parses the answer as for `chat.completions.create`.
 */

const JSON_BODY = { "content-type": "application/json" };

export async function callOpenAi(config: LlmConfig, call: PreparedCall): Promise<ProviderOutcome> {
  if (!config.baseURL) return { ok: false, error: { kind: "invalid_response", message: "OPENAI_BASE_URL is not set" } };
  const messages = chatCompletionsMessages(call.messages) as ChatCompletionCreateParamsBase["messages"];
  const body: ChatCompletionCreateParamsBase = { model: config.model, messages };
  // Some servers reject an empty `tools` array (and tool_choice without tools).
  if (call.tools.length > 0) {
    body.tools = call.tools;
    if (call.toolChoice !== undefined) body.tool_choice = call.toolChoice;
  }
  if (config.temperature !== undefined) body.temperature = config.temperature;

  let client: OpenAI;
  try {
    client = openAiClient(config, call);
  } catch (e) {
    return {
      ok: false,
      error: { kind: "invalid_response", message: `bad LLM configuration: ${(e as Error).message}` },
    };
  }
  const outcome = call.stream ? await streamTurn(client, body, config, call) : await completeTurn(client, body, call);
  if (!outcome.ok && "thrown" in outcome.error) {
    return { ok: false, error: toLlmError(outcome.error.thrown, call.maxRetryAfterMs) };
  }
  return outcome as ProviderOutcome;
}

const clients = new ClientCache<OpenAI>();

function openAiClient(config: LlmConfig, call: PreparedCall): OpenAI {
  const { maxRetries, timeoutMs, maxRetryAfterMs } = call;
  const make = () =>
    new OpenAI({
      baseURL: config.baseURL,
      // Local servers (Ollama, vLLM) need no key, but the client refuses to start without one.
      apiKey: config.apiKey || "unused",
      maxRetries,
      timeout: timeoutMs,
      fetch: capRetryAfter(call.fetch ?? ((input, init) => fetch(input, init)), maxRetryAfterMs),
      ...(config.gatewayToken ? { defaultHeaders: { "cf-aig-authorization": `Bearer ${config.gatewayToken}` } } : {}),
    });
  return clients.get(config, call, make);
}

type Outcome = ProviderOutcome | { ok: false; error: { thrown: unknown } };

async function streamTurn(
  client: OpenAI,
  body: ChatCompletionCreateParamsBase,
  config: LlmConfig,
  call: PreparedCall,
): Promise<Outcome> {
  const assembler = new StreamAssembler(call.idSeed);
  const streamUsage = config.streamUsage ?? true;
  const read = await readStream<ChatCompletionChunk>({
    open: (signal) =>
      client.post<Stream<ChatCompletionChunk>>("/chat/completions", {
        body: chatRequestJson({
          ...body,
          stream: true,
          ...(streamUsage ? { stream_options: { include_usage: true } } : {}),
        }),
        headers: JSON_BODY,
        stream: true,
        signal,
      }),
    onItem: (chunk) => call.onDelta(assembler.push(chunk)),
    idleMs: call.timeoutMs,
    signal: call.signal,
  });
  if (!read.ok) return read as Outcome;
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
  call: PreparedCall,
): Promise<Outcome> {
  let completion: unknown;
  try {
    completion = await client.post<ChatCompletion>("/chat/completions", {
      body: chatRequestJson({ ...body, stream: false }),
      headers: JSON_BODY,
      ...(call.signal ? { signal: call.signal } : {}),
    });
  } catch (e) {
    return { ok: false, error: { thrown: e } };
  }
  const converted = fromCompletion(completion, call.idSeed);
  if (!converted.ok) return { ok: false, error: { kind: "invalid_response", message: converted.error } };
  if (converted.turn.content) call.onDelta(converted.turn.content);
  return converted;
}
