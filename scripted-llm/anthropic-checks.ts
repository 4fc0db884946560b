import { blocksOf } from "./anthropic-view.js";

/**
 * The rules the real Messages API enforces on a request, checked as strictly as it does, so a
 * client that breaks one fails here as it would there: `{status, type, message}` for the first
 * one broken, or null. Covers what a tool loop can get wrong: the version and key headers,
 * `max_tokens`, roles, empty text, tool ids, every `tool_use` answered by a `tool_result` in
 * the very next user turn (results first in it), results only for calls just made, tools
 * defined whenever the history holds tool blocks, at most four cache breakpoints.
 */

export type AnthropicProblem = { status: number; type: string; message: string };

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const TOOL_ID = /^[a-zA-Z0-9_-]+$/;
const TOOL_CHOICES = new Set(["auto", "any", "tool", "none"]);

export function anthropicProblem(body: unknown, headers: Record<string, string | undefined>): AnthropicProblem | null {
  if (!headers["x-api-key"] && !headers.authorization) {
    return { status: 401, type: "authentication_error", message: "x-api-key header is required" };
  }
  if (!headers["anthropic-version"]) return invalid("anthropic-version: header is required");
  if (!isObject(body)) return invalid("body must be a JSON object");
  if (typeof body.model !== "string" || body.model === "") return invalid("model: Field required");
  if (typeof body.max_tokens !== "number" || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
    return invalid("max_tokens: Field required (a positive integer)");
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return invalid("messages: at least one message is required");
  const problem = messagesProblem(body.messages, Array.isArray(body.tools) && body.tools.length > 0);
  if (problem) return invalid(problem);
  if (body.system !== undefined && typeof body.system !== "string") {
    if (
      !Array.isArray(body.system) ||
      !body.system.every((b) => isObject(b) && b.type === "text" && typeof b.text === "string")
    ) {
      return invalid("system: must be a string or a list of text blocks");
    }
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return invalid("tools: must be a list");
    for (const [i, tool] of body.tools.entries()) {
      if (!isObject(tool) || typeof tool.name !== "string" || !isObject(tool.input_schema)) {
        return invalid(`tools.${i}: a tool needs a name and an input_schema object`);
      }
    }
  }
  if (
    body.tool_choice !== undefined &&
    !(isObject(body.tool_choice) && TOOL_CHOICES.has(String(body.tool_choice.type)))
  ) {
    return invalid("tool_choice: type must be auto, any, tool or none");
  }
  const breakpoints = JSON.stringify(body).split('"cache_control"').length - 1;
  if (breakpoints > 4)
    return invalid(`A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`);
  return null;
}

function messagesProblem(messages: unknown[], toolsDefined: boolean): string | null {
  let openCalls: string[] = [];
  for (const [i, message] of messages.entries()) {
    if (!isObject(message) || (message.role !== "user" && message.role !== "assistant")) {
      return `messages.${i}.role: must be "user" or "assistant"`;
    }
    if (i === 0 && message.role !== "user") return "messages: the first message must use the user role";
    const blocks = blocksOf(message.content);
    if (blocks.length === 0) return `messages.${i}: all messages must have non-empty content`;
    const answered = new Set<string>();
    let sawOther = false;
    for (const [j, block] of blocks.entries()) {
      const where = `messages.${i}.content.${j}`;
      if (block.type === "text") {
        if (typeof block.text !== "string" || block.text === "")
          return `${where}: text content blocks must be non-empty`;
        sawOther = true;
      } else if (block.type === "tool_use") {
        if (message.role !== "assistant") return `${where}: tool_use blocks belong in assistant messages`;
        if (typeof block.id !== "string" || !TOOL_ID.test(block.id))
          return `${where}.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
        if (typeof block.name !== "string" || !isObject(block.input))
          return `${where}: tool_use needs a name and an input object`;
        if (!toolsDefined) return "Requests which include `tool_use` or `tool_result` blocks must define tools.";
      } else if (block.type === "tool_result") {
        if (message.role !== "user") return `${where}: tool_result blocks belong in user messages`;
        if (!toolsDefined) return "Requests which include `tool_use` or `tool_result` blocks must define tools.";
        if (sawOther) return `${where}: tool_result blocks must come first in the content, before any text`;
        if (Array.isArray(block.content)) {
          for (const [k, part] of block.content.entries()) {
            const problem = isObject(part) && part.type === "image" ? imageProblem(part) : null;
            if (problem) return `${where}.content.${k}.${problem}`;
            if (isObject(part) && part.type === "text" && part.text === "")
              return `${where}.content.${k}: text content blocks must be non-empty`;
            if (!isObject(part) || (part.type !== "text" && part.type !== "image"))
              return `${where}.content.${k}: a tool_result holds text and image blocks only`;
          }
        }
        const id = String(block.tool_use_id);
        if (!openCalls.includes(id)) {
          return `${where}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
        answered.add(id);
      } else {
        const problem = block.type === "image" ? imageProblem(block) : null;
        if (problem) return `${where}.${problem}`;
        sawOther = true;
      }
    }
    if (openCalls.length > 0) {
      const missing = openCalls.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    }
    openCalls =
      message.role === "assistant" ? blocks.filter((b) => b.type === "tool_use").map((b) => String(b.id)) : [];
  }
  if (openCalls.length > 0) return "messages: the last assistant message has tool_use blocks without results";
  return null;
}

function invalid(message: string): AnthropicProblem {
  return { status: 400, type: "invalid_request_error", message };
}

const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/** An image block's source as the API takes it inline: base64 of one of four types. */
function imageProblem(block: JsonObject): string | null {
  const source = block.source;
  if (!isObject(source) || source.type !== "base64") return "source.type: only base64 sources are scripted";
  if (typeof source.media_type !== "string" || !IMAGE_TYPES.includes(source.media_type))
    return `source.media_type: Input should be ${IMAGE_TYPES.map((t) => `'${t}'`).join(", ")}`;
  if (typeof source.data !== "string" || !/^[A-Za-z0-9+/]+={0,2}$/.test(source.data))
    return "source.data: must be non-empty base64";
  return null;
}
