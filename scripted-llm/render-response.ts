import type { TurnChoice } from "./choose-turn.js";
import type { ScriptQuirks } from "./script.js";
import { renderArguments, renderTemplate, type TemplateValues } from "./templates.js";

/**
 * A chosen turn as OpenAI's wire format: the stream chunks of `chat.completion.chunk` (split
 * the way OpenAI splits them: role first, content in pieces, each tool call's name in its
 * first delta and its arguments over several, then finish_reason, then usage with
 * `choices: []`) or one non-streamed `chat.completion`. Quirks bend it the way other servers do.
 */

export type ResolvedCall = { id: string; name: string; arguments: Record<string, unknown> | string };
export type ResolvedTurn = { content: string | null; toolCalls: ResolvedCall[]; quirks: ScriptQuirks };
export type ResponseMeta = { id: string; model: string; created: number; promptTokens: number; includeUsage: boolean };

type Chunk = Record<string, unknown>;

export function resolveTurn(choice: TurnChoice, values: TemplateValues): ResolvedTurn {
  const { turn } = choice;
  const quirks = turn.quirks ?? {};
  const idBase = choice.kind === "scripted" ? `${choice.ruleIndex}:${choice.turnIndex}:${values.user}` : values.user;
  let content = turn.content === undefined ? null : renderTemplate(turn.content, values);
  let toolCalls: ResolvedCall[] = (turn.tool_calls ?? []).map((call, i) => ({
    // Deterministic ids: a retried request gets the very same answer.
    id: call.id ?? `call_${hashHex(`${idBase}:${i}`)}`,
    name: call.name,
    arguments: renderArguments(call.arguments, values),
  }));
  if (quirks.text_tool_call && toolCalls.length > 0) {
    const written = toolCalls.map((c) => writeCallAsText(c, quirks.text_tool_call!));
    content = [content ?? "", ...written].filter((t) => t !== "").join("\n");
    toolCalls = [];
  }
  return { content, toolCalls, quirks };
}

function writeCallAsText(call: ResolvedCall, style: "json" | "xml"): string {
  // Raw argument text goes in verbatim, so a script can write deliberately broken JSON.
  const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
  return style === "json"
    ? `{"tool": ${JSON.stringify(call.name)}, "args": ${args}}`
    : `<tool_call>{"name": ${JSON.stringify(call.name)}, "arguments": ${args}}</tool_call>`;
}

export function finishReason(turn: ResolvedTurn): "stop" | "tool_calls" {
  return turn.toolCalls.length > 0 && !turn.quirks.finish_reason_stop ? "tool_calls" : "stop";
}

export function usageOf(turn: ResolvedTurn, meta: ResponseMeta) {
  const written = (turn.content ?? "") + turn.toolCalls.map((c) => c.name + argumentText(c)).join("");
  const completion = Math.max(1, Math.ceil(written.length / 4));
  return {
    prompt_tokens: meta.promptTokens,
    completion_tokens: completion,
    total_tokens: meta.promptTokens + completion,
  };
}

export function streamChunks(turn: ResolvedTurn, meta: ResponseMeta): Chunk[] {
  const withUsageField = meta.includeUsage && !turn.quirks.no_usage;
  const chunk = (delta: Chunk, finish: string | null = null): Chunk => ({
    id: meta.id,
    object: "chat.completion.chunk",
    created: meta.created,
    model: meta.model,
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    // OpenAI sends `usage: null` on every chunk once include_usage is on.
    ...(withUsageField ? { usage: null } : {}),
  });
  const chunks: Chunk[] = [];
  const hasText = turn.content !== null && turn.content !== "";
  chunks.push(chunk({ role: "assistant", content: hasText || turn.toolCalls.length === 0 ? "" : null, refusal: null }));
  if (hasText) for (const piece of splitText(turn.content!)) chunks.push(chunk({ content: piece }));
  turn.toolCalls.forEach((call, index) => {
    const position = turn.quirks.missing_index ? {} : { index };
    const identity = turn.quirks.missing_ids ? {} : { id: call.id, type: "function" };
    if (turn.quirks.arguments_as_object && typeof call.arguments === "object") {
      chunks.push(
        chunk({ tool_calls: [{ ...position, ...identity, function: { name: call.name, arguments: call.arguments } }] }),
      );
      return;
    }
    chunks.push(chunk({ tool_calls: [{ ...position, ...identity, function: { name: call.name, arguments: "" } }] }));
    for (const piece of splitArguments(argumentText(call))) {
      chunks.push(chunk({ tool_calls: [{ ...position, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, finishReason(turn)));
  if (withUsageField) {
    chunks.push({
      id: meta.id,
      object: "chat.completion.chunk",
      created: meta.created,
      model: meta.model,
      system_fingerprint: null,
      choices: [],
      usage: usageOf(turn, meta),
    });
  }
  return chunks;
}

export function completionBody(turn: ResolvedTurn, meta: ResponseMeta): Chunk {
  const toolCalls = turn.toolCalls.map((call) => ({
    ...(turn.quirks.missing_ids ? {} : { id: call.id }),
    type: "function",
    function: {
      name: call.name,
      arguments:
        turn.quirks.arguments_as_object && typeof call.arguments === "object" ? call.arguments : argumentText(call),
    },
  }));
  return {
    id: meta.id,
    object: "chat.completion",
    created: meta.created,
    model: meta.model,
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: turn.content === "" && toolCalls.length > 0 ? null : turn.content,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: finishReason(turn),
      },
    ],
    ...(turn.quirks.no_usage ? {} : { usage: usageOf(turn, meta) }),
  };
}

function argumentText(call: ResolvedCall): string {
  return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
}

/** Two or three words per delta, as real streams roughly do. */
export function splitText(text: string): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? [text];
  const pieces: string[] = [];
  for (let i = 0; i < words.length; i += 2) pieces.push(words.slice(i, i + 2).join(""));
  return pieces.length > 0 ? pieces : [text];
}

/** Two or three pieces (anything of 2+ characters), so clients are exercised on assembly. */
export function splitArguments(text: string): string[] {
  if (text.length < 2) return [text];
  const pieces = Math.min(3, text.length);
  const size = Math.ceil(text.length / pieces);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** FNV-1a, 64 bits as two halves: enough spread for call ids, no crypto needed. */
function hashHex(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
  }
  return h1.toString(16).padStart(8, "0") + h2.toString(16).padStart(8, "0");
}
