/**
 * Tool calls written as text in `content`, for models without native tool calling (the text protocol)
 * and for models that fall back to text even when given native tools. Recognised:
 *   {"tool": "x", "args": {...}}            the shape our text protocol asks for
 *   {"name": "x", "arguments": {...}}       Hermes / Qwen / Llama style ("parameters" too)
 *   {"type":"function","function":{...}}    OpenAI's own shape, written out
 *   the same inside ```json fences, inside <tool_call>…</tool_call> (one or several), or as a
 *   JSON array of calls (optionally after Mistral's [TOOL_CALLS] marker).
 *
 * Prose must not turn into calls: a bare or fenced object counts only when its keys are call
 * keys and either the name is a known tool or the whole reply is nothing but that call.
 * Inside <tool_call> any name counts: the tag says what it is (an unknown name then gets the
 * "tool not found" answer, which is more useful to the model than silence).
 */

import { generatedCallId } from "./stream-assembler.js";
import type { LlmTurn } from "./types.js";

export {
  isTextProtocolToolResult,
  textProtocolSystemSection,
} from "./text-protocol-prompts.js";

export type TextToolCall = { name: string; arguments: string };

export type TextToolCallExtraction = {
  calls: TextToolCall[];
  /** Why a clear attempt at a call could not be read; null when there was none. */
  malformed: string | null;
  /** The content with the calls taken out (trimmed). */
  text: string;
};

type JsonObject = Record<string, unknown>;
type Range = { start: number; end: number };

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const CALL_KEYS = new Set([
  "tool",
  "name",
  "tool_name",
  "args",
  "arguments",
  "parameters",
  "input",
  "type",
  "id",
  "function",
]);
const ARG_KEYS = ["args", "arguments", "parameters", "input"] as const;
/** Start of something that is plainly meant as a call, even if what follows is broken. */
const CALL_ATTEMPT =
  /^\{\s*["']?(?:tool|name|tool_name|function)["']?\s*:\s*\{?\s*(?:["']?name["']?\s*:\s*)?["']([A-Za-z0-9_-]{1,64})["']/;
const TAGGED = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;
const FENCED = /```[ \t]*(?:json|tool_call|tool|javascript)?[ \t]*\r?\n?([\s\S]*?)```/gi;
const MISTRAL_MARKER = /\[TOOL_CALLS\]\s*/g;
const OBJECT_START = /^(?:\[\s*)?\{\s*["']/;
/** Bounds the scan on pathological text (each candidate is a linear walk). */
const MAX_BARE_CANDIDATES = 200;

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

export function extractTextToolCalls(
  content: string | null | undefined,
  knownToolNames: readonly string[],
): TextToolCallExtraction {
  const source = content ?? "";
  const known = new Set(knownToolNames);
  const tagged = extractTagged(source, known);
  if (tagged.found) return finish(source, tagged.calls, tagged.malformed, tagged.removed);
  const fenced = extractFenced(source, known);
  const bare = extractBare(source, known, fenced.removed);
  const calls = [...fenced.calls, ...bare.calls];
  const malformed = fenced.malformed ?? bare.malformed;
  return finish(source, calls, malformed, [...fenced.removed, ...bare.removed]);
}

type PartialExtraction = { calls: TextToolCall[]; malformed: string | null; removed: Range[] };

function extractTagged(source: string, known: ReadonlySet<string>): PartialExtraction & { found: boolean } {
  const result: PartialExtraction & { found: boolean } = { calls: [], malformed: null, removed: [], found: false };
  for (const match of source.matchAll(TAGGED)) {
    result.found = true;
    result.removed.push({ start: match.index, end: match.index + match[0].length });
    const body = stripFence(match[1] ?? "").trim();
    const parsed = parseJson(body);
    if (!parsed.ok) {
      result.malformed ??= `<tool_call> block is not valid JSON (${parsed.error})`;
      continue;
    }
    const calls = toCalls(parsed.value, { known, explicit: true });
    if (calls === null)
      result.malformed ??= '<tool_call> block is not a tool call (expected {"name": …, "arguments": {…}})';
    else result.calls.push(...calls);
  }
  return result;
}

function extractFenced(source: string, known: ReadonlySet<string>): PartialExtraction {
  const result: PartialExtraction = { calls: [], malformed: null, removed: [] };
  for (const match of source.matchAll(FENCED)) {
    const body = (match[1] ?? "").trim();
    if (!body.startsWith("{") && !body.startsWith("[")) continue;
    const context = { known, explicit: source.trim() === match[0].trim() };
    const parsed = parseJson(body);
    if (!parsed.ok) {
      const attempted = CALL_ATTEMPT.exec(body)?.[1];
      if (attempted && (known.has(attempted) || context.explicit)) {
        result.malformed ??= `tool call for '${attempted}' is not valid JSON (${parsed.error})`;
      }
      continue;
    }
    const calls = toCalls(parsed.value, context);
    if (calls === null) continue;
    result.calls.push(...calls);
    result.removed.push({ start: match.index, end: match.index + match[0].length });
  }
  return result;
}

/** JSON objects (or arrays of them) standing in the text itself. */
function extractBare(source: string, known: ReadonlySet<string>, skip: readonly Range[]): PartialExtraction {
  const result: PartialExtraction = { calls: [], malformed: null, removed: [] };
  const trimmedReply = source.replace(MISTRAL_MARKER, "").trim();
  let attempts = 0;
  let i = 0;
  while (i < source.length && attempts < MAX_BARE_CANDIDATES) {
    const ch = source[i];
    const inSkipped = skip.find((r) => i >= r.start && i < r.end);
    if (inSkipped) {
      i = inSkipped.end;
      continue;
    }
    // Only brackets that open a keyed object can start a call; `{x}` in prose never does.
    if ((ch !== "{" && ch !== "[") || !OBJECT_START.test(source.slice(i, i + 64))) {
      i++;
      continue;
    }
    attempts++;
    const end = matchingClose(source, i);
    const candidate = end === -1 ? source.slice(i) : source.slice(i, end);
    const context = { known, explicit: trimmedReply === candidate.trim() };
    const parsed = end === -1 ? ({ ok: false, error: "unbalanced braces" } as const) : parseJson(candidate);
    if (parsed.ok) {
      const calls = toCalls(parsed.value, context);
      if (calls !== null) {
        result.calls.push(...calls);
        const markerStart = markerBefore(source, i);
        result.removed.push({ start: markerStart, end: end });
        i = end;
        continue;
      }
    } else {
      const attempted = CALL_ATTEMPT.exec(candidate)?.[1];
      if (attempted && (known.has(attempted) || context.explicit)) {
        result.malformed ??= `tool call for '${attempted}' is not valid JSON (${parsed.error})`;
        if (end === -1) break;
      }
    }
    // Not a call: look inside it too (a call may sit in a larger non-call object or array).
    i++;
  }
  return result;
}

/** Mistral writes `[TOOL_CALLS][...]`; take the marker out with the calls. */
function markerBefore(source: string, start: number): number {
  const before = source.slice(0, start);
  const m = /\[TOOL_CALLS\]\s*$/.exec(before);
  return m ? m.index : start;
}

/**
 * Whether a name counts: a known tool always; any tool-shaped name when the context makes the
 * intent plain (inside <tool_call>, or the reply is nothing but the call).
 */
type CallContext = { known: ReadonlySet<string>; explicit: boolean };

/** The calls a parsed value stands for, or null if it is not a call at all. */
function toCalls(value: unknown, context: CallContext): TextToolCall[] | null {
  if (Array.isArray(value)) {
    if (value.length === 0) return null;
    const calls: TextToolCall[] = [];
    for (const item of value) {
      const call = toCall(item, context);
      if (!call) return null;
      calls.push(call);
    }
    return calls;
  }
  if (isObject(value) && Array.isArray(value.tool_calls)) return toCalls(value.tool_calls, context);
  const call = toCall(value, context);
  return call ? [call] : null;
}

function toCall(value: unknown, context: CallContext): TextToolCall | null {
  if (!isObject(value)) return null;
  if (!Object.keys(value).every((k) => CALL_KEYS.has(k))) return null;
  const fn = isObject(value.function) ? value.function : null;
  const name = [value.tool, value.name, value.tool_name, fn?.name].find((n) => typeof n === "string");
  if (typeof name !== "string" || !TOOL_NAME.test(name)) return null;
  const argsKey = ARG_KEYS.find((k) => k in value);
  const args = argsKey ? value[argsKey] : fn?.arguments;
  if (!context.known.has(name)) {
    // An unknown name counts only when the context is explicit and the object is more than a
    // lone {"name": …} (which is as likely data as a call).
    const callShaped = args !== undefined || "tool" in value || fn !== null;
    if (!context.explicit || !callShaped) return null;
  }
  return { name, arguments: serializeArguments(args) };
}

function serializeArguments(args: unknown): string {
  if (args === undefined || args === null) return "{}";
  if (typeof args === "string") return args;
  return JSON.stringify(args);
}

function stripFence(body: string): string {
  const m = /^\s*```[a-z_]*\s*\n?([\s\S]*?)```\s*$/i.exec(body);
  return m ? (m[1] ?? "") : body;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** Index just past the bracket closing the one at `start`, string-aware; -1 if unbalanced. */
function matchingClose(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function finish(
  source: string,
  calls: TextToolCall[],
  malformed: string | null,
  removed: Range[],
): TextToolCallExtraction {
  const sorted = [...removed].sort((a, b) => a.start - b.start);
  let text = "";
  let cursor = 0;
  for (const range of sorted) {
    if (range.start < cursor) continue;
    text += source.slice(cursor, range.start);
    cursor = range.end;
  }
  text += source.slice(cursor);
  return { calls, malformed, text: text.replace(/\n{3,}/g, "\n\n").trim() };
}

/**
 * A turn with no native tool calls whose text holds a text-protocol call gets those calls
 * (`textProtocol: true`); a clear but unreadable attempt is reported in `malformedToolCall`.
 * Ids come from the seed, as for native calls without ids, so a retried call matches.
 */
export function withTextToolCalls(turn: LlmTurn, knownToolNames: readonly string[], idSeed: string): LlmTurn {
  if (turn.toolCalls.length > 0 || !turn.content) return turn;
  const found = extractTextToolCalls(turn.content, knownToolNames);
  if (found.calls.length === 0 && found.malformed === null) return turn;
  const next: LlmTurn = { ...turn };
  if (found.calls.length > 0) {
    next.textProtocol = true;
    next.toolCalls = found.calls.map((call, i) => ({ id: generatedCallId(idSeed, i), ...call }));
    next.content = found.text === "" ? null : found.text;
    next.finishReason = "tool_calls";
  }
  if (found.malformed !== null) next.malformedToolCall = found.malformed;
  return next;
}
