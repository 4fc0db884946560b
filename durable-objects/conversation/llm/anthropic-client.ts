import type Anthropic from "@anthropic-ai/sdk";
import { anthropicLlmError } from "./anthropic-errors.js";
import { anthropicRequestJson } from "./anthropic-request.js";
import { AnthropicStreamAssembler, fromAnthropicMessage } from "./anthropic-stream.js";
import { ClientCache } from "./client-cache.js";
import type { PreparedCall, ProviderOutcome } from "./provider-call.js";
import { capRetryAfter } from "./retry-after-cap.js";
import { readStream } from "./stream-reader.js";
import type { LlmConfig } from "./types.js";

/**
 * The `anthropic` provider: Anthropic's Messages API natively, through `@anthropic-ai/sdk`. Used
 * by callLlm (llm-client.ts); the request is built by anthropic-request.ts and the answer read by
 * anthropic-stream.ts.
 *
 * Retries are the SDK's, as for the openai client: 408, 409, 429 and 5xx (529 `overloaded_error`
 * included) and connection failures, honouring `retry-after` / `retry-after-ms`, with the same
 * cap on how long one call sleeps (retry-after-cap.ts). An `error` event inside a 200 stream is
 * not retried: part of the answer may already have been shown.
 *
 * The SDK is loaded on the first call: it is most of the worker's code, and a deployment on
 * another provider should not pay for evaluating it at every isolate start.
 */

type Sdk = typeof import("@anthropic-ai/sdk") & { Stream: typeof import("@anthropic-ai/sdk/core/streaming").Stream };
let sdk: Promise<Sdk> | undefined;
const loadSdk = () => {
  sdk ??= Promise.all([import("@anthropic-ai/sdk"), import("@anthropic-ai/sdk/core/streaming")]).then(
    ([main, streaming]) => ({ ...main, Stream: streaming.Stream }),
  );
  return sdk;
};

export const ANTHROPIC_DEFAULT_MODEL = "claude-sonnet-4-5";
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

export async function callAnthropic(config: LlmConfig, call: PreparedCall): Promise<ProviderOutcome> {
  if (!config.apiKey)
    return { ok: false, error: { kind: "invalid_response", message: "ANTHROPIC_API_KEY is not set" } };
  let client: Anthropic;
  let module: Sdk;
  try {
    module = await loadSdk();
    client = anthropicClient(module, config, call);
  } catch (e) {
    return {
      ok: false,
      error: { kind: "invalid_response", message: `bad LLM configuration: ${(e as Error).message}` },
    };
  }
  const body = (stream: boolean) =>
    anthropicRequestJson({
      model: config.model,
      maxTokens: config.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      messages: call.messages,
      tools: call.tools,
      toolChoice: call.toolChoice,
      temperature: config.temperature,
      stream,
      caching: config.promptCaching ?? true,
    });
  return call.stream ? streamTurn(module, client, body(true), call) : completeTurn(module, client, body(false), call);
}

const JSON_BODY = { "content-type": "application/json" };

async function streamTurn(module: Sdk, client: Anthropic, body: string, call: PreparedCall): Promise<ProviderOutcome> {
  const assembler = new AnthropicStreamAssembler(call.idSeed);
  const read = await readStream<unknown>({
    open: async (signal) => {
      const response = await client
        .post("/v1/messages", { body, headers: JSON_BODY, stream: true, signal })
        .asResponse();
      return messageEvents(module, response);
    },
    onItem: (event) => call.onDelta(assembler.push(event)),
    idleMs: call.timeoutMs,
    signal: call.signal,
  });
  if (!read.ok) {
    const error =
      "thrown" in read.error ? anthropicLlmError(module, read.error.thrown, call.maxRetryAfterMs) : read.error;
    return { ok: false, error };
  }
  if (!assembler.sawMessage) {
    return {
      ok: false,
      error: {
        kind: "invalid_response",
        message: `stream ended without a message (${assembler.eventCount} events, no message_start)`,
      },
    };
  }
  return { ok: true, turn: assembler.finish() };
}

/**
 * The stream's events, parsed. The SDK's own reader drops events that come without an `event:`
 * name; the API always names them, but every event's data also carries its `type`, so servers
 * that leave the names out (proxies, stand-ins) are read too. An `error` event throws the SDK's
 * APIError, as its reader would.
 */
async function* messageEvents(module: Sdk, response: Response): AsyncGenerator<unknown> {
  for await (const sse of module.Stream.rawEvents(response)) {
    if (sse.event === "ping" || sse.data.trim() === "") continue;
    let data: unknown;
    try {
      data = JSON.parse(sse.data);
    } catch {
      throw new SyntaxError(`unreadable stream event: ${sse.data.slice(0, 200)}`);
    }
    const event = typeof data === "object" && data !== null ? (data as Record<string, unknown>) : {};
    if (sse.event === "error" || event.type === "error") {
      throw new module.APIError(undefined, event, undefined, response.headers);
    }
    if (event.type === undefined && sse.event) event.type = sse.event;
    yield event;
  }
}

async function completeTurn(
  module: Sdk,
  client: Anthropic,
  body: string,
  call: PreparedCall,
): Promise<ProviderOutcome> {
  let message: unknown;
  try {
    message = await client.post("/v1/messages", {
      body,
      headers: JSON_BODY,
      ...(call.signal ? { signal: call.signal } : {}),
    });
  } catch (e) {
    return { ok: false, error: anthropicLlmError(module, e, call.maxRetryAfterMs) };
  }
  const converted = fromAnthropicMessage(message, call.idSeed);
  if (!converted.ok) return { ok: false, error: { kind: "invalid_response", message: converted.error } };
  if (converted.turn.content) call.onDelta(converted.turn.content);
  return converted;
}

const clients = new ClientCache<Anthropic>();

function anthropicClient(module: Sdk, config: LlmConfig, call: PreparedCall): Anthropic {
  const { maxRetries, timeoutMs, maxRetryAfterMs } = call;
  const make = () =>
    new module.default({
      // Always given: without a key the SDK would look for credentials in the environment.
      apiKey: config.apiKey,
      ...(config.baseURL ? { baseURL: config.baseURL } : {}),
      maxRetries,
      timeout: timeoutMs,
      fetch: capRetryAfter(call.fetch ?? ((input, init) => fetch(input, init)), maxRetryAfterMs),
      ...(config.gatewayToken ? { defaultHeaders: { "cf-aig-authorization": `Bearer ${config.gatewayToken}` } } : {}),
      // Its own log lines would go to the worker's console as plain text, beside our JSON lines.
      logLevel: "off",
    });
  return clients.get(config, call, make);
}
