import { chatCompletionsMessages } from "./image-parts.js";
import { type CompletionConversion, fromCompletion } from "./stream-assembler.js";
import type { ChatMessage } from "./types.js";

/**
 * What the Workers AI binding (`env.AI.run`) takes and answers, in and out of the Chat
 * Completions shapes the rest of the layer reads (stream-assembler.ts). Pure.
 *
 * The binding answers in one of two forms, depending on the model:
 *   - its own (Llama 3.x and older models): `{response, tool_calls: [{name, arguments}], usage}`,
 *     `arguments` an object, no call ids; streamed as SSE `data: {"response":"…"}` chunks, tool
 *     calls in a chunk of their own, usage in the last one;
 *   - OpenAI's (gpt-oss, Qwen, newer models): a `chat.completion` with `choices`, streamed as
 *     `chat.completion.chunk`s; some stream tool calls as `{index, id, function:{name}}` then
 *     `{index, function:{arguments:"…"}}` pieces, then a `{id:null, function:{name:null}}` closer.
 * `response` is sometimes an object (JSON mode) or a number; both become text. A model that
 * cannot stream answers a `stream: true` request with the whole object instead of a stream.
 */

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The history as the binding takes it: `content` must be a string (never null), and a tool
 * result names its tool (some models' templates use it).
 */
export function bindingMessages(messages: readonly ChatMessage[]): JsonObject[] {
  const names = new Map<string, string>();
  // Vision models take images as Chat Completions `image_url` parts with a data URL (image-parts.ts).
  return chatCompletionsMessages(messages).map((m) => {
    if (m.role === "assistant") {
      for (const call of m.tool_calls ?? []) names.set(call.id, call.function.name);
      return m.content === null ? { ...m, content: "" } : m;
    }
    if (m.role === "tool") {
      const name = names.get(m.tool_call_id);
      return name ? { ...m, name } : m;
    }
    return m;
  });
}

/** The binding's streamed chunks, one at a time, as Chat Completions chunks. */
export class WorkersAiChunks {
  /** calls of the binding's own form seen so far: they carry no index, their order is it */
  private flatCalls = 0;

  toChatChunk(chunk: unknown): unknown {
    if (!isObject(chunk) || Array.isArray(chunk.choices)) return chunk;
    const delta: JsonObject = {};
    const text = responseText(chunk.response);
    if (text !== null && text !== "") delta.content = text;
    if (Array.isArray(chunk.tool_calls)) {
      const calls = chunk.tool_calls.filter(isObject).filter((c) => !isCloser(c));
      if (calls.length > 0) delta.tool_calls = calls.map((c) => this.toCallDelta(c));
    }
    const finish = typeof chunk.finish_reason === "string" ? chunk.finish_reason : null;
    return { choices: [{ index: 0, delta, finish_reason: finish }], ...(chunk.usage ? { usage: chunk.usage } : {}) };
  }

  private toCallDelta(call: JsonObject): JsonObject {
    if (isObject(call.function)) return call;
    const { name, arguments: args, id } = call;
    return {
      index: typeof call.index === "number" ? call.index : this.flatCalls++,
      id,
      function: { name, arguments: args },
    };
  }
}

/** A whole (non-streamed) answer of either form as an LlmTurn. */
export function fromWorkersAiOutput(output: unknown, idSeed: string): CompletionConversion {
  if (typeof output === "string") return fromCompletion(completionOf({ response: output }), idSeed);
  if (!isObject(output)) return { ok: false, error: "Workers AI answered neither text nor an object" };
  // The REST API wraps the answer in `result`; the binding does not, but an AI Gateway may.
  const answer = isObject(output.result) && !("response" in output) && !("choices" in output) ? output.result : output;
  if (Array.isArray(answer.choices)) return fromCompletion(answer, idSeed);
  if (!("response" in answer) && !("tool_calls" in answer)) {
    return {
      ok: false,
      error: `Workers AI answer has neither response nor choices: ${JSON.stringify(answer).slice(0, 200)}`,
    };
  }
  return fromCompletion(completionOf(answer), idSeed);
}

function completionOf(answer: JsonObject): JsonObject {
  const calls = Array.isArray(answer.tool_calls) ? answer.tool_calls.filter(isObject).filter((c) => !isCloser(c)) : [];
  const message = {
    role: "assistant",
    content: responseText(answer.response),
    tool_calls: calls.map((c) =>
      isObject(c.function) ? c : { id: c.id, function: { name: c.name, arguments: c.arguments } },
    ),
  };
  return { choices: [{ index: 0, message, finish_reason: answer.finish_reason ?? null }], usage: answer.usage };
}

function responseText(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (isObject(value) || Array.isArray(value)) return JSON.stringify(value);
  return null;
}

/** `{id: null, type: null, function: {name: null}}`: ends a streamed call, carries nothing. */
function isCloser(call: JsonObject): boolean {
  const fn = isObject(call.function) ? call.function : {};
  const name = fn.name ?? call.name ?? null;
  const args = fn.arguments ?? call.arguments ?? null;
  return !call.id && !name && (args === null || args === "");
}
