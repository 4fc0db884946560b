import { IMAGE_ONLY_RESULT, imagesWithData } from "./image-parts.js";
import { memoByIdentity } from "./memo-by-identity.js";
import type { ChatMessage, ChatTool, ChatToolChoice } from "./types.js";

/**
 * The core's history as an Anthropic Messages API request body (JSON text). Pure. What the API
 * wants differently from Chat Completions:
 *   - the system prompt is a top-level `system` (every system message joins it, in order);
 *   - an assistant's tool calls are `tool_use` blocks with `input` as an object;
 *   - tool results are `tool_result` blocks in a user message, one message for a whole round
 *     (consecutive messages of one role are merged, so a note the loop adds after the results
 *     follows them in the same user turn, as the API requires);
 *   - empty text blocks are refused, so empty assistant text is left out (and an assistant
 *     message with nothing left is dropped);
 *   - tool ids must match ^[a-zA-Z0-9_-]+$, so ids from other providers are made to fit, the
 *     same way at the call and at its result;
 *   - `max_tokens` is required;
 *   - prompt caching: a `cache_control` breakpoint on the last tool, on the system prompt and on
 *     the history's last block (rendering order is tools, system, messages, so each caches
 *     everything before it; the loop resends the whole history each step, which then reads
 *     from the cache up to the previous step's end). Four are allowed; three are used.
 *
 * Like request-json.ts, each message's blocks are serialized once (messages never change once
 * appended) and the tool list once per list.
 */

type Block = Record<string, unknown>;
type Converted = { role: "user" | "assistant"; blocks: Block[]; json: string[] };

const EPHEMERAL = { type: "ephemeral" } as const;
const TOOL_ID_CHARS = /[^a-zA-Z0-9_-]/g;

export type AnthropicRequestParams = {
  model: string;
  maxTokens: number;
  messages: readonly ChatMessage[];
  tools: readonly ChatTool[];
  toolChoice?: ChatToolChoice | undefined;
  temperature?: number | undefined;
  stream: boolean;
  caching: boolean;
};

export function anthropicRequestJson(p: AnthropicRequestParams): string {
  const system: string[] = [];
  const turns: Turn[] = [];
  for (const message of p.messages) {
    if (message.role === "system") {
      if (message.content.trim() !== "") system.push(message.content);
      continue;
    }
    const converted = convert(message);
    if (converted.blocks.length === 0) continue;
    let turn = turns[turns.length - 1];
    if (!turn || turn.role !== converted.role) {
      turn = { role: converted.role, json: [], last: null, uses: [], results: new Set() };
      turns.push(turn);
    }
    turn.json.push(...converted.json);
    turn.last = converted.blocks[converted.blocks.length - 1]!;
    for (const block of converted.blocks) {
      if (block.type === "tool_use") turn.uses.push(block.id as string);
      if (block.type === "tool_result") turn.results.add(block.tool_use_id as string);
    }
  }
  answerEveryCall(turns);
  const final = turns[turns.length - 1];
  if (p.caching && final?.last)
    final.json[final.json.length - 1] = JSON.stringify({ ...final.last, cache_control: EPHEMERAL });

  let json = `{"model":${JSON.stringify(p.model)},"max_tokens":${p.maxTokens}`;
  if (system.length > 0) {
    const block = { type: "text", text: system.join("\n\n"), ...(p.caching ? { cache_control: EPHEMERAL } : {}) };
    json += `,"system":[${JSON.stringify(block)}]`;
  }
  json += `,"messages":[${turns.map((t) => `{"role":"${t.role}","content":[${t.json.join(",")}]}`).join(",")}]`;
  if (p.tools.length > 0) {
    json += `,"tools":${(p.caching ? cachedToolsJson : toolsJson)(p.tools)}`;
    const choice = toolChoiceOf(p.toolChoice);
    if (choice) json += `,"tool_choice":${JSON.stringify(choice)}`;
  }
  if (p.temperature !== undefined) json += `,"temperature":${p.temperature}`;
  return `${json},"stream":${p.stream}}`;
}

type Turn = {
  role: "user" | "assistant";
  json: string[];
  /** the turn's last block, for the history's cache breakpoint */
  last: Block | null;
  uses: string[];
  results: Set<string>;
};

/**
 * The API refuses a `tool_use` whose result is not in the very next user turn. A run that ended
 * mid-round (cancelled, out of budget, the model failed) leaves such calls behind; they get a
 * result saying so, first in that turn as the API also requires.
 */
function answerEveryCall(turns: Turn[]): void {
  for (let i = 0; i < turns.length; i++) {
    const turn = turns[i]!;
    if (turn.role !== "assistant" || turn.uses.length === 0) continue;
    let next = turns[i + 1];
    if (next?.role !== "user") {
      next = { role: "user", json: [], last: null, uses: [], results: new Set() };
      turns.splice(i + 1, 0, next);
    }
    const missing = turn.uses.filter((id) => !next.results.has(id));
    const answers = missing.map((id) => ({ type: "tool_result", tool_use_id: id, content: NO_RESULT, is_error: true }));
    next.json.unshift(...answers.map((b) => JSON.stringify(b)));
    for (const id of missing) next.results.add(id);
    if (next.last === null && answers.length > 0) next.last = answers[answers.length - 1]!;
  }
}

const NO_RESULT = "Error: the call did not complete (the run ended before its result came back)";

/** A tool id the API accepts; a valid one is left as it is. */
export function anthropicToolId(id: string): string {
  const fitted = id.replace(TOOL_ID_CHARS, "_");
  return fitted === "" ? "toolu_empty" : fitted;
}

const convert = memoByIdentity((message: ChatMessage): Converted => {
  const blocks = blocksOf(message);
  return {
    role: message.role === "assistant" ? "assistant" : "user",
    blocks,
    json: blocks.map((b) => JSON.stringify(b)),
  };
});

function blocksOf(message: ChatMessage): Block[] {
  switch (message.role) {
    case "system":
      return [];
    case "user": {
      const text = message.content.trim() === "" ? [] : [{ type: "text", text: message.content }];
      return [...text, ...imagesWithData(message.images).map(imageBlock)];
    }
    case "tool": {
      const images = imagesWithData(message.images);
      // An empty result is refused along with empty text; say it was empty instead.
      const text = message.content === "" ? (images.length > 0 ? IMAGE_ONLY_RESULT : "(no output)") : message.content;
      const block: Block = {
        type: "tool_result",
        tool_use_id: anthropicToolId(message.tool_call_id),
        // Images go inside the result, beside its text.
        content: images.length > 0 ? [{ type: "text", text }, ...images.map(imageBlock)] : text,
      };
      // The loop writes every failed outcome as "Error: …" (core/tool-messages.ts).
      if (message.content.startsWith("Error: ")) block.is_error = true;
      return [block];
    }
    case "assistant": {
      const blocks: Block[] = [];
      if (message.content && message.content.trim() !== "") blocks.push({ type: "text", text: message.content });
      for (const call of message.tool_calls ?? []) {
        blocks.push({
          type: "tool_use",
          id: anthropicToolId(call.id),
          name: call.function.name,
          input: inputOf(call.function.arguments),
        });
      }
      return blocks;
    }
  }
}

function imageBlock(image: { media_type: string; data: string }): Block {
  return { type: "image", source: { type: "base64", media_type: image.media_type, data: image.data } };
}

/**
 * `input` must be an object. Arguments a model wrote that do not parse to one (a call cut off by
 * max_tokens, say) are kept under one key, so the model still sees what it wrote next to the
 * error its result carries.
 */
function inputOf(args: string): Record<string, unknown> {
  if (args.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(args);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // kept as written, below
  }
  return { invalid_arguments: args };
}

function toolsOf(tools: readonly ChatTool[], caching: boolean): Block[] {
  const out: Block[] = [];
  for (const tool of tools) {
    if (tool.type !== "function") continue;
    const fn = tool.function;
    out.push({
      name: fn.name,
      ...(fn.description ? { description: fn.description } : {}),
      input_schema: fn.parameters ?? { type: "object", properties: {} },
    });
  }
  if (caching && out.length > 0) out[out.length - 1] = { ...out[out.length - 1], cache_control: EPHEMERAL };
  return out;
}

const toolsJson = memoByIdentity((tools: readonly ChatTool[]) => JSON.stringify(toolsOf(tools, false)));
const cachedToolsJson = memoByIdentity((tools: readonly ChatTool[]) => JSON.stringify(toolsOf(tools, true)));

function toolChoiceOf(choice: ChatToolChoice | undefined): Block | null {
  if (choice === undefined || choice === "auto") return null;
  if (choice === "none") return { type: "none" };
  if (choice === "required") return { type: "any" };
  if (typeof choice === "object" && choice.type === "function") return { type: "tool", name: choice.function.name };
  return null;
}
