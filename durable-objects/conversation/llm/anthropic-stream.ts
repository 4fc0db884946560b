import { anthropicToolId } from "./anthropic-request.js";
import { generatedCallId } from "./stream-assembler.js";
import type { LlmToolCall, LlmTurn, LlmUsage } from "./types.js";

/**
 * Turns Anthropic Messages API stream events (already JSON-parsed) into one LlmTurn, and a
 * non-streamed `message` likewise. Pure.
 *
 * The stream: `message_start` (the message with its usage: input tokens, cache reads and
 * writes), then per content block `content_block_start` → `content_block_delta`s (`text_delta`,
 * or `input_json_delta` whose `partial_json` pieces join into the tool's input) →
 * `content_block_stop`, then `message_delta` (stop_reason, output tokens), `message_stop`.
 * Blocks carry an `index`; parallel tool calls are several `tool_use` blocks. Blocks of other
 * kinds (thinking, server tools) are not part of the answer and are skipped.
 *
 * stop_reason in the core's terms: tool_use → "tool_calls", max_tokens → "length" (a tool
 * call's input may then be cut off), end_turn / stop_sequence → "stop", refusal →
 * "content_filter"; anything else is kept as it is.
 */

type JsonObject = Record<string, unknown>;
type Slot = { kind: "text"; text: string } | { kind: "tool"; id: string; name: string; json: string; input: unknown };

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

export class AnthropicStreamAssembler {
  private readonly slots = new Map<number, Slot>();
  private stopReason: string | null = null;
  private inputTokens: number | undefined;
  private outputTokens: number | undefined;
  /** False until `message_start`; a stream without one is not a response. */
  sawMessage = false;
  eventCount = 0;

  constructor(private readonly idSeed: string) {}

  /** Feeds one event; returns the answer text it added (for live deltas), "" if none. */
  push(event: unknown): string {
    this.eventCount++;
    if (!isObject(event)) return "";
    const index = typeof event.index === "number" ? event.index : -1;
    switch (event.type) {
      case "message_start":
        this.sawMessage = true;
        if (isObject(event.message)) this.readUsage(event.message.usage);
        return "";
      case "content_block_start": {
        const block = isObject(event.content_block) ? event.content_block : {};
        if (block.type === "text") {
          const text = typeof block.text === "string" ? block.text : "";
          this.slots.set(index, { kind: "text", text });
          return text;
        }
        if (block.type === "tool_use") {
          this.slots.set(index, {
            kind: "tool",
            id: typeof block.id === "string" ? block.id : "",
            name: typeof block.name === "string" ? block.name : "",
            json: "",
            input: block.input,
          });
        }
        return "";
      }
      case "content_block_delta": {
        const slot = this.slots.get(index);
        const delta = isObject(event.delta) ? event.delta : {};
        if (slot?.kind === "text" && delta.type === "text_delta" && typeof delta.text === "string") {
          slot.text += delta.text;
          return delta.text;
        }
        if (slot?.kind === "tool" && delta.type === "input_json_delta" && typeof delta.partial_json === "string") {
          slot.json += delta.partial_json;
        }
        return "";
      }
      case "message_delta":
        if (isObject(event.delta) && typeof event.delta.stop_reason === "string") {
          this.stopReason = event.delta.stop_reason;
        }
        this.readUsage(event.usage);
        return "";
      default:
        return "";
    }
  }

  finish(): LlmTurn {
    const ordered = [...this.slots.entries()].sort(([a], [b]) => a - b).map(([, slot]) => slot);
    return buildTurn(ordered, this.stopReason, this.usage(), this.idSeed);
  }

  private readUsage(value: unknown): void {
    if (!isObject(value)) return;
    // Input is split three ways when caching is on: uncached, written to the cache, read from it.
    const parts = [value.input_tokens, value.cache_creation_input_tokens, value.cache_read_input_tokens];
    if (parts.some((n) => typeof n === "number")) {
      this.inputTokens = parts.reduce<number>((sum, n) => sum + (typeof n === "number" ? n : 0), 0);
    }
    if (typeof value.output_tokens === "number") this.outputTokens = value.output_tokens;
  }

  private usage(): LlmUsage | undefined {
    if (this.inputTokens === undefined && this.outputTokens === undefined) return undefined;
    return { prompt_tokens: this.inputTokens ?? 0, completion_tokens: this.outputTokens ?? 0 };
  }
}

export type MessageConversion = { ok: true; turn: LlmTurn } | { ok: false; error: string };

/** A non-streamed Messages API response (`{"type":"message","content":[…],…}`). */
export function fromAnthropicMessage(json: unknown, idSeed: string): MessageConversion {
  if (!isObject(json)) return { ok: false, error: "response is not a JSON object" };
  if (json.type === "error" || isObject(json.error)) {
    const error = isObject(json.error) ? json.error : {};
    return { ok: false, error: `provider error: ${String(error.type ?? "")} ${String(error.message ?? "")}`.trim() };
  }
  if (!Array.isArray(json.content)) return { ok: false, error: "response has no content" };
  const assembler = new AnthropicStreamAssembler(idSeed);
  assembler.push({ type: "message_start", message: { usage: json.usage } });
  json.content.forEach((block, index) => {
    if (!isObject(block)) return;
    if (block.type === "text") assembler.push({ type: "content_block_start", index, content_block: block });
    if (block.type === "tool_use") {
      assembler.push({ type: "content_block_start", index, content_block: { ...block, input: {} } });
      const input = JSON.stringify(block.input ?? {});
      assembler.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: input } });
    }
  });
  assembler.push({ type: "message_delta", delta: { stop_reason: json.stop_reason } });
  return { ok: true, turn: assembler.finish() };
}

const FINISH: Record<string, string> = {
  tool_use: "tool_calls",
  max_tokens: "length",
  end_turn: "stop",
  stop_sequence: "stop",
  refusal: "content_filter",
};

function buildTurn(slots: readonly Slot[], stopReason: string | null, usage: LlmUsage | undefined, idSeed: string) {
  let content = "";
  const toolCalls: LlmToolCall[] = [];
  const usedIds = new Set<string>();
  for (const slot of slots) {
    if (slot.kind === "text") {
      content += slot.text;
      continue;
    }
    // A block whose input came whole in content_block_start (no deltas) keeps that input.
    const args = slot.json !== "" ? slot.json : JSON.stringify(isObject(slot.input) ? slot.input : {});
    const fitted = slot.id ? anthropicToolId(slot.id) : "";
    const id = fitted && !usedIds.has(fitted) ? fitted : generatedCallId(idSeed, toolCalls.length);
    usedIds.add(id);
    toolCalls.push({ id, name: slot.name, arguments: args });
  }
  let finishReason = stopReason === null ? null : (FINISH[stopReason] ?? stopReason);
  if (toolCalls.length > 0 && (finishReason === null || finishReason === "stop")) finishReason = "tool_calls";
  const turn: LlmTurn = { content: content === "" ? null : content, toolCalls, finishReason };
  if (usage) turn.usage = usage;
  return turn;
}
