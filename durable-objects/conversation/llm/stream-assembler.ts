import type { LlmToolCall, LlmTurn, LlmUsage } from "./types.js";

/**
 * Turns Chat Completions stream chunks (already JSON-parsed) into one LlmTurn. Pure: no I/O,
 * no clock, no randomness; ids for calls that came without one derive from the caller's seed.
 *
 * Written for what real OpenAI-compatible servers send, not only for what OpenAI documents:
 * tool calls finished with "stop" or no finish reason, `arguments` as an object, empty or
 * missing call ids, missing `index`, every call at index 0, usage-only chunks with
 * `choices: []`, choices without `delta`, legacy `function_call` deltas.
 */

type CallSlot = { id: string; name: string; arguments: string };

type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

export function generatedCallId(seed: string, index: number): string {
  return `call_${seed}_${index}`;
}

export class StreamAssembler {
  private content = "";
  private readonly slots: CallSlot[] = [];
  /** Latest slot per provider index: a repeated index with a new id is a new call. */
  private readonly slotByIndex = new Map<number, CallSlot>();
  private finishReason: string | null = null;
  private usage: LlmUsage | undefined;
  /** False until a chunk carried a choice; a stream with none is not a response. */
  sawChoice = false;
  chunkCount = 0;

  constructor(private readonly idSeed: string) {}

  /** Feeds one chunk; returns the content text it added (for live deltas), "" if none. */
  push(chunk: unknown): string {
    this.chunkCount++;
    if (!isObject(chunk)) return "";
    const usage = readUsage(chunk.usage);
    if (usage) this.usage = usage;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    let added = "";
    for (const choice of choices) {
      if (!isObject(choice)) continue;
      // n>1 is never requested; ignore any other choice rather than interleave two answers.
      if (typeof choice.index === "number" && choice.index !== 0) continue;
      this.sawChoice = true;
      const delta = isObject(choice.delta) ? choice.delta : this.fullMessageFallback(choice);
      if (delta) added += this.applyDelta(delta);
      if (typeof choice.finish_reason === "string" && choice.finish_reason) {
        this.finishReason = choice.finish_reason;
      }
      const choiceUsage = readUsage(choice.usage);
      if (choiceUsage) this.usage = choiceUsage;
    }
    return added;
  }

  finish(): LlmTurn {
    return buildTurn(this.content, this.slots, this.finishReason, this.usage, this.idSeed);
  }

  /** Some servers put a whole `message` in a stream chunk; take it only if nothing came yet. */
  private fullMessageFallback(choice: JsonObject): JsonObject | null {
    if (!isObject(choice.message)) return null;
    if (this.content !== "" || this.slots.length > 0) return null;
    return choice.message;
  }

  private applyDelta(delta: JsonObject): string {
    const text = readContent(delta.content);
    this.content += text;
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls) if (isObject(call)) this.applyToolCallDelta(call);
    } else if (isObject(delta.function_call)) {
      // Legacy single function call: same as a tool call at index 0.
      this.applyToolCallDelta({ index: 0, function: delta.function_call });
    }
    return text;
  }

  private applyToolCallDelta(call: JsonObject): void {
    const fn = isObject(call.function) ? call.function : {};
    const id = typeof call.id === "string" ? call.id : "";
    const name = typeof fn.name === "string" ? fn.name : "";
    const slot = this.slotFor(call.index, id, name);
    if (id && !slot.id) slot.id = id;
    // Names normally come whole in the first delta; some servers repeat them on every delta,
    // a few split them. Append only what is not a repeat.
    if (name && name !== slot.name) slot.name += name;
    const args = fn.arguments;
    if (typeof args === "string") slot.arguments += args;
    else if (isObject(args) || Array.isArray(args)) slot.arguments = JSON.stringify(args);
  }

  private slotFor(index: unknown, id: string, name: string): CallSlot {
    if (typeof index === "number" && Number.isInteger(index)) {
      const existing = this.slotByIndex.get(index);
      // Some servers send every call at index 0: a delta with a fresh id and a name starts a
      // new call even though the index is taken.
      if (existing && !(id && name && existing.id && existing.id !== id)) return existing;
      const slot = this.newSlot();
      this.slotByIndex.set(index, slot);
      return slot;
    }
    // No index: calls arrive in order; a new id, or a name when the current call already has
    // one (and no id says otherwise), starts the next call.
    const current = this.slots[this.slots.length - 1];
    if (!current) return this.newSlot();
    if (id && current.id && id !== current.id) return this.newSlot();
    if (!id && name && current.name && name !== current.name) return this.newSlot();
    return current;
  }

  private newSlot(): CallSlot {
    const slot = { id: "", name: "", arguments: "" };
    this.slots.push(slot);
    return slot;
  }
}

/** Convenience for tests and recorded streams: every chunk in order. */
export function assembleChunks(chunks: readonly unknown[], idSeed: string): LlmTurn {
  const assembler = new StreamAssembler(idSeed);
  for (const chunk of chunks) assembler.push(chunk);
  return assembler.finish();
}

export type CompletionConversion = { ok: true; turn: LlmTurn } | { ok: false; error: string };

/** A non-streamed `chat.completion` object, with the same quirk handling as the stream. */
export function fromCompletion(json: unknown, idSeed: string): CompletionConversion {
  if (!isObject(json)) return { ok: false, error: "response is not a JSON object" };
  if (isObject(json.error)) {
    return { ok: false, error: `provider error: ${String(json.error.message ?? JSON.stringify(json.error))}` };
  }
  if (!Array.isArray(json.choices) || json.choices.length === 0) {
    return { ok: false, error: "response has no choices" };
  }
  const choice = json.choices.find((c) => isObject(c) && (c.index === undefined || c.index === 0));
  if (!isObject(choice) || !isObject(choice.message)) {
    return { ok: false, error: "response choice has no message" };
  }
  const message = choice.message;
  const slots: CallSlot[] = [];
  const rawCalls = Array.isArray(message.tool_calls)
    ? message.tool_calls
    : isObject(message.function_call)
      ? [{ function: message.function_call }]
      : [];
  for (const call of rawCalls) {
    if (!isObject(call)) continue;
    const fn = isObject(call.function) ? call.function : {};
    const args = fn.arguments;
    slots.push({
      id: typeof call.id === "string" ? call.id : "",
      name: typeof fn.name === "string" ? fn.name : "",
      arguments: typeof args === "string" ? args : args === undefined || args === null ? "" : JSON.stringify(args),
    });
  }
  const finishReason = typeof choice.finish_reason === "string" ? choice.finish_reason : null;
  const turn = buildTurn(readContent(message.content), slots, finishReason, readUsage(json.usage), idSeed);
  return { ok: true, turn };
}

function buildTurn(
  content: string,
  slots: readonly CallSlot[],
  finishReason: string | null,
  usage: LlmUsage | undefined,
  idSeed: string,
): LlmTurn {
  const toolCalls: LlmToolCall[] = [];
  const usedIds = new Set<string>();
  for (const slot of slots) {
    // A slot with neither name nor arguments is noise (e.g. an empty delta), not a call.
    if (!slot.name && !slot.arguments) continue;
    const position = toolCalls.length;
    // Tool results are matched by id, so a missing or duplicated id gets a stable one.
    const id = slot.id && !usedIds.has(slot.id) ? slot.id : generatedCallId(idSeed, position);
    usedIds.add(id);
    toolCalls.push({ id, name: slot.name, arguments: slot.arguments });
  }
  const normalizedFinish =
    toolCalls.length > 0 && (finishReason === null || finishReason === "stop") ? "tool_calls" : finishReason;
  // "" and null mean the same (no text); one spelling keeps consumers simple.
  const turn: LlmTurn = { content: content === "" ? null : content, toolCalls, finishReason: normalizedFinish };
  if (usage) turn.usage = usage;
  return turn;
}

/**
 * Content is a string normally; some servers send text parts. No text reads as "", which buildTurn
 * turns into null: a separate "no content" value would be one more spelling of the same thing.
 */
function readContent(value: unknown): string {
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) return "";
  return value.map((part) => (isObject(part) && typeof part.text === "string" ? part.text : "")).join("");
}

function readUsage(value: unknown): LlmUsage | undefined {
  if (!isObject(value)) return undefined;
  const prompt = value.prompt_tokens ?? value.input_tokens;
  const completion = value.completion_tokens ?? value.output_tokens;
  if (typeof prompt !== "number" && typeof completion !== "number") return undefined;
  return {
    prompt_tokens: typeof prompt === "number" ? prompt : 0,
    completion_tokens: typeof completion === "number" ? completion : 0,
  };
}
