import { type ResolvedCall, type ResolvedTurn, splitArguments, splitText } from "./render-response.js";

/**
 * A chosen turn in Anthropic's Messages API wire format, as the real API sends it:
 *   message_start (usage: input and cache tokens) → per block content_block_start, a `ping`
 *   after the first, content_block_delta (`text_delta` pieces; for `tool_use` an empty
 *   `input_json_delta` first, then the input's JSON in several pieces) and content_block_stop →
 *   message_delta (stop_reason, output tokens) → message_stop.
 * Each tool call is its own `tool_use` block (parallel calls: several). The `max_tokens_stop`
 * quirk ends the answer as a cap would: stop_reason "max_tokens", the last call's input cut off.
 * Also the non-streamed `message` and the API's error body.
 */

export type AnthropicMeta = {
  id: string;
  model: string;
  /** input tokens, split the way the API reports them when a request has cache breakpoints */
  usage: { input_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number };
};

export type SseEvent = { event: string; data: Record<string, unknown> };

export function anthropicEvents(turn: ResolvedTurn, meta: AnthropicMeta): SseEvent[] {
  const events: SseEvent[] = [];
  const push = (event: string, data: Record<string, unknown>) => events.push({ event, data: { type: event, ...data } });
  push("message_start", {
    message: {
      id: meta.id,
      type: "message",
      role: "assistant",
      model: meta.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...meta.usage, output_tokens: 1 },
    },
  });
  let index = 0;
  if (turn.content) {
    push("content_block_start", { index, content_block: { type: "text", text: "" } });
    push("ping", {});
    for (const text of splitText(turn.content)) {
      push("content_block_delta", { index, delta: { type: "text_delta", text } });
    }
    push("content_block_stop", { index });
    index++;
  }
  const calls = callsOf(turn);
  for (const call of calls) {
    push("content_block_start", {
      index,
      content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
    });
    if (index === 0) push("ping", {});
    push("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: "" } });
    for (const piece of splitArguments(call.json)) {
      push("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } });
    }
    push("content_block_stop", { index });
    index++;
  }
  push("message_delta", {
    delta: { stop_reason: stopReason(turn), stop_sequence: null },
    usage: { output_tokens: outputTokens(turn) },
  });
  push("message_stop", {});
  return events;
}

export function anthropicMessage(turn: ResolvedTurn, meta: AnthropicMeta): Record<string, unknown> {
  const content: Record<string, unknown>[] = [];
  if (turn.content) content.push({ type: "text", text: turn.content });
  for (const call of callsOf(turn)) {
    content.push({ type: "tool_use", id: call.id, name: call.name, input: parsedInput(call.json) });
  }
  return {
    id: meta.id,
    type: "message",
    role: "assistant",
    model: meta.model,
    content,
    stop_reason: stopReason(turn),
    stop_sequence: null,
    usage: { ...meta.usage, output_tokens: outputTokens(turn) },
  };
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

export function anthropicErrorType(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

export function anthropicErrorBody(type: string, message: string, requestId: string): Record<string, unknown> {
  return { type: "error", error: { type, message }, request_id: requestId };
}

type Call = { id: string; name: string; json: string };

function callsOf(turn: ResolvedTurn): Call[] {
  const calls = turn.toolCalls.map((c: ResolvedCall) => ({
    id: c.id.startsWith("call_") ? `toolu_${c.id.slice(5)}` : c.id,
    name: c.name,
    json: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
  }));
  const last = calls[calls.length - 1];
  if (turn.quirks.max_tokens_stop && last)
    last.json = last.json.slice(0, Math.max(1, Math.floor(last.json.length / 2)));
  return calls;
}

function stopReason(turn: ResolvedTurn): string {
  if (turn.quirks.max_tokens_stop) return "max_tokens";
  return turn.toolCalls.length > 0 ? "tool_use" : "end_turn";
}

function outputTokens(turn: ResolvedTurn): number {
  const written =
    (turn.content ?? "") +
    callsOf(turn)
      .map((c) => c.name + c.json)
      .join("");
  return Math.max(1, Math.ceil(written.length / 4));
}

function parsedInput(json: string): unknown {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null ? value : {};
  } catch {
    return {};
  }
}
