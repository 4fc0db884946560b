import { TOOL_IMAGES_TEXT } from "@edgeloop/protocol/content-blocks";
import { LATE_RESULT_NOTE } from "@edgeloop/protocol/events";
import { isTextProtocolToolResult } from "@edgeloop/protocol/text-tool-protocol";

/**
 * What the scripted model reads from a chat request: the last user message, the assistant
 * turns since, and the tool results since. Tool results of a text-protocol conversation arrive
 * as user messages ("Tool result for …") and count as tool results, not as the user speaking.
 * A late-result note from edgeloop is neither, nor is the user message that carries tool results'
 * images (Chat Completions): the script goes on as if they were not there.
 */
export type ConversationView = {
  user: string;
  /** assistant messages after the last user message = which scripted turn to answer */
  assistantTurns: number;
  toolResults: string[];
  toolNames: string[];
};

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

export function viewConversation(body: unknown): ConversationView {
  const request = isObject(body) ? body : {};
  // Neither a late-result note nor the message carrying tool results' images is the user speaking.
  const messages = (Array.isArray(request.messages) ? request.messages.filter(isObject) : []).filter(
    (m) =>
      !(
        m.role === "user" &&
        (textOf(m.content).startsWith(LATE_RESULT_NOTE) || textOf(m.content).startsWith(TOOL_IMAGES_TEXT))
      ),
  );
  let lastUser = -1;
  messages.forEach((m, i) => {
    if (m.role === "user" && !isTextProtocolToolResult(textOf(m.content))) lastUser = i;
  });
  const after = messages.slice(lastUser + 1);
  const toolResults: string[] = [];
  for (const m of after) {
    if (m.role === "tool") toolResults.push(textOf(m.content));
    else if (m.role === "user") toolResults.push(withoutResultHeader(textOf(m.content)));
  }
  const tools = Array.isArray(request.tools) ? request.tools.filter(isObject) : [];
  return {
    user: lastUser >= 0 ? textOf(messages[lastUser]!.content) : "",
    assistantTurns: after.filter((m) => m.role === "assistant").length,
    toolResults,
    toolNames: tools.flatMap((t) =>
      isObject(t.function) && typeof t.function.name === "string" ? [t.function.name] : [],
    ),
  };
}

export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((p) => (isObject(p) && typeof p.text === "string" ? p.text : "")).join("");
  }
  return "";
}

/** "Tool result for bash (call_1):\n<output>" → "<output>" */
function withoutResultHeader(text: string): string {
  const newline = text.indexOf("\n");
  return newline === -1 ? text : text.slice(newline + 1);
}
