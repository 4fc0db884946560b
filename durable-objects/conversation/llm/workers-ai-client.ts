import { Stream } from "openai/core/streaming";
import type { PreparedCall, ProviderOutcome } from "./provider-call.js";
import { StreamAssembler } from "./stream-assembler.js";
import { readStream } from "./stream-reader.js";
import type { LlmConfig, LlmError, LlmTurn } from "./types.js";
import { bindingMessages, fromWorkersAiOutput, WorkersAiChunks } from "./workers-ai-output.js";

/**
 * The `workers-ai` provider: a model on Workers AI through the worker's `AI` binding: no key, no
 * egress, billed to the account. The answer's two forms are read by workers-ai-output.ts.
 *
 * The binding streams where the model can (`stream: true` answers a ReadableStream of SSE
 * bytes, read with the openai package's SSE reader) and otherwise answers the whole object.
 * It has no retries of its own and throws plain Errors whose message carries Workers AI's error
 * code, so retrying is done here: out of capacity (3040), timeouts (3007, 3008) and internal or
 * upstream failures, with the openai client's backoff (0.5 s doubling, at most 8 s, jittered),
 * and never once part of the answer has been streamed. Its models' own default answer cap is
 * small (256 tokens for Llama 3.3), which cuts tool calls short, so `max_tokens` is always sent.
 */

export const WORKERS_AI_DEFAULT_MODEL = "@cf/meta/llama-3.3-70b-instruct-fp8-fast";
export const WORKERS_AI_DEFAULT_MAX_TOKENS = 4096;

/**
 * What to do when the binding is missing: wrangler.toml declares it only in the `workers-ai`
 * environment, so that plain `wrangler dev` starts without a Cloudflare login.
 */
export const WORKERS_AI_HOW_TO =
  'the worker has no Workers AI binding "AI": it is in wrangler.toml\'s `workers-ai` environment. ' +
  "Locally run `npx wrangler login`, then `npx wrangler dev --env workers-ai`; deploy with " +
  "`npx wrangler deploy --env workers-ai`. Or configure another model: OPENAI_BASE_URL (any " +
  "OpenAI-compatible endpoint) or ANTHROPIC_API_KEY (docs/providers.md)";

export async function callWorkersAi(config: LlmConfig, call: PreparedCall): Promise<ProviderOutcome> {
  const ai = config.ai;
  if (!ai) return { ok: false, error: { kind: "invalid_response", message: WORKERS_AI_HOW_TO } };
  const inputs: Record<string, unknown> = {
    messages: bindingMessages(call.messages),
    max_tokens: config.maxTokens ?? WORKERS_AI_DEFAULT_MAX_TOKENS,
    stream: call.stream,
  };
  if (call.tools.length > 0) inputs.tools = call.tools;
  if (config.temperature !== undefined) inputs.temperature = config.temperature;
  const gateway = config.gatewayId ? { gateway: { id: config.gatewayId } } : {};

  for (let attempt = 0; ; attempt++) {
    let streamed = false;
    const onDelta = (text: string) => {
      if (text) streamed = true;
      call.onDelta(text);
    };
    const outcome = await attemptOnce((signal) => ai.run(config.model, inputs, { ...gateway, signal }), {
      ...call,
      onDelta,
    });
    if (outcome.ok || !outcome.retryable || streamed || attempt >= call.maxRetries) return outcome;
    if (!(await backoff(attempt, call.signal))) return outcome;
  }
}

type Attempt = { ok: true; turn: LlmTurn } | { ok: false; error: LlmError; retryable: boolean };

async function attemptOnce(run: (signal: AbortSignal) => Promise<unknown>, call: PreparedCall): Promise<Attempt> {
  const assembler = new StreamAssembler(call.idSeed);
  const chunks = new WorkersAiChunks();
  let whole: { output: unknown } | null = null;
  const read = await readStream<unknown>({
    open: async (signal) => {
      const output = await run(signal);
      if (output instanceof ReadableStream) {
        return Stream.fromSSEResponse<unknown>(new Response(output), new AbortController());
      }
      whole = { output };
      return NOTHING;
    },
    onItem: (chunk) => call.onDelta(assembler.push(chunks.toChatChunk(chunk))),
    idleMs: call.timeoutMs,
    signal: call.signal,
  });
  if (!read.ok) {
    if ("thrown" in read.error) return workersAiError(read.error.thrown);
    const error = read.error;
    return { ok: false, error, retryable: error.kind === "timeout" };
  }
  if (whole !== null) {
    const converted = fromWorkersAiOutput((whole as { output: unknown }).output, call.idSeed);
    if (!converted.ok)
      return { ok: false, error: { kind: "invalid_response", message: converted.error }, retryable: false };
    if (converted.turn.content) call.onDelta(converted.turn.content);
    return converted;
  }
  if (!assembler.sawChoice) {
    const message = `Workers AI stream ended without a response (${assembler.chunkCount} chunks)`;
    return { ok: false, error: { kind: "invalid_response", message }, retryable: true };
  }
  return { ok: true, turn: assembler.finish() };
}

/** The stream of an answer that came whole: there is nothing to read. */
const NOTHING: AsyncIterable<unknown> = {
  [Symbol.asyncIterator]: () => ({ next: async () => ({ done: true, value: undefined }) }),
};

/** Workers AI's error codes (docs/providers.md) by what they mean for a retry. */
const RETRYABLE_CODES: Record<string, number> = { "3040": 429, "3007": 408, "3008": 408, "3043": 500 };
const FINAL_CODES: Record<string, number> = {
  "3036": 429,
  "3006": 413,
  "3042": 404,
  "5007": 400,
  "5004": 400,
  "3003": 400,
  "3023": 403,
  "5016": 403,
  "5018": 403,
  "3041": 403,
};
const TRANSIENT = /capacity|temporarily|timed? ?out|internal server error|upstream|network|connection|unavailable/i;

export function workersAiError(thrown: unknown): Attempt & { ok: false } {
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  if (/needs to be run remotely/i.test(message)) {
    return {
      ok: false,
      retryable: false,
      error: {
        kind: "invalid_response",
        message:
          "the Workers AI binding runs only on Cloudflare: log in (`npx wrangler login`) and run " +
          "`npx wrangler dev --env workers-ai` (not --local), or set another LLM_PROVIDER (docs/providers.md)",
      },
    };
  }
  const code = /\b([35]\d{3})\b/.exec(message)?.[1];
  const retryStatus = code ? RETRYABLE_CODES[code] : undefined;
  const finalStatus = code ? FINAL_CODES[code] : undefined;
  const text = `Workers AI error: ${message}`.slice(0, 500);
  if (retryStatus !== undefined)
    return { ok: false, retryable: true, error: { kind: "http", status: retryStatus, message: text } };
  if (finalStatus !== undefined)
    return { ok: false, retryable: false, error: { kind: "http", status: finalStatus, message: text } };
  const transient = !code && TRANSIENT.test(message);
  return {
    ok: false,
    retryable: transient,
    error: { kind: transient ? "network" : "invalid_response", message: text },
  };
}

/** false when the caller gave up meanwhile */
function backoff(attempt: number, signal: AbortSignal | undefined): Promise<boolean> {
  const ms = Math.min(500 * 2 ** attempt, 8000) * (0.75 + Math.random() * 0.25);
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve(true);
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener("abort", stop, { once: true });
  });
}
