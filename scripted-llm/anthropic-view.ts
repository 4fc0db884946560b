import { isTextProtocolToolResult } from "@edgeloop/protocol/text-tool-protocol";
import type { ConversationView } from "./conversation-view.js";

/**
 * What the scripted model reads from an Anthropic Messages API request, in the same terms as a
 * Chat Completions one (conversation-view.ts): the last user message (its text blocks), the
 * assistant turns since, and the tool results since (`tool_result` blocks, or text-protocol
 * results written as user text). A user turn that holds both results and a note after them
 * (the API wants one turn for both) counts as the user speaking: the note is the user's text.
 */

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

export function viewAnthropicConversation(body: unknown): ConversationView {
  const request = isObject(body) ? body : {};
  const messages = Array.isArray(request.messages) ? request.messages.filter(isObject) : [];
  let lastUser = -1;
  let userText = "";
  messages.forEach((m, i) => {
    if (m.role !== "user") return;
    const text = blocksOf(m.content)
      .filter((b) => b.type === "text" && typeof b.text === "string" && !isTextProtocolToolResult(b.text))
      .map((b) => b.text as string)
      .join("\n");
    if (text === "") return;
    lastUser = i;
    userText = text;
  });
  const toolResults: string[] = [];
  for (const m of messages.slice(lastUser + 1)) {
    if (m.role !== "user") continue;
    for (const block of blocksOf(m.content)) {
      if (block.type === "tool_result") toolResults.push(resultText(block.content));
      else if (block.type === "text" && typeof block.text === "string") toolResults.push(withoutHeader(block.text));
    }
  }
  const tools = Array.isArray(request.tools) ? request.tools.filter(isObject) : [];
  return {
    user: userText,
    assistantTurns: messages.slice(lastUser + 1).filter((m) => m.role === "assistant").length,
    toolResults,
    toolNames: tools.flatMap((t) => (typeof t.name === "string" ? [t.name] : [])),
  };
}

/** `content` is a string (one text block) or an array of blocks. */
export function blocksOf(content: unknown): JsonObject[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  return blocksOf(content)
    .map((b) => (typeof b.text === "string" ? b.text : ""))
    .join("");
}

/** "Tool result for bash (call_1):\n<output>" → "<output>" */
function withoutHeader(text: string): string {
  const newline = text.indexOf("\n");
  return newline === -1 ? text : text.slice(newline + 1);
}
