import { isTextProtocolToolResult, TEXT_PROTOCOL_RESULT_PREFIX } from "@edgeloop/protocol/text-tool-protocol";
import type { ChatMessage, ChatTool, MessageImage } from "./types.js";

/**
 * What a model without native tool calling is told (the text protocol), and how a native-shaped history is rewritten for
 * such a model (it may not understand `tool_calls` or `role: "tool"`).
 */

export type TextProtocolTool = { name: string; description: string; parameters: unknown };

/** Tool results go back to a text-protocol model as user messages starting with this. */
export { isTextProtocolToolResult, TEXT_PROTOCOL_RESULT_PREFIX };

/** The system-prompt section for a model configured as text-protocol. */
export function textProtocolSystemSection(tools: readonly TextProtocolTool[]): string {
  const list = tools
    .map((t) => `- ${t.name}: ${t.description}\n  parameters (JSON Schema): ${JSON.stringify(t.parameters ?? {})}`)
    .join("\n");
  return [
    "## Tools",
    "You can run tools on the user's device. To call a tool, reply with only one JSON object and nothing else:",
    '{"tool": "<tool name>", "args": {<arguments as the tool\'s parameters describe>}}',
    'To call several tools at once, write each call as <tool_call>{"tool": …, "args": {…}}</tool_call>.',
    `The result comes back in a message starting with "${TEXT_PROTOCOL_RESULT_PREFIX}<tool name>".`,
    "When you have what you need, answer the user in plain text, without any tool-call JSON.",
    "",
    "Available tools:",
    list || "(none)",
  ].join("\n");
}

export function textProtocolToolsFrom(tools: readonly ChatTool[]): TextProtocolTool[] {
  const out: TextProtocolTool[] = [];
  for (const tool of tools) {
    if (tool.type !== "function") continue;
    out.push({
      name: tool.function.name,
      description: tool.function.description ?? "",
      parameters: tool.function.parameters ?? {},
    });
  }
  return out;
}

/**
 * The same conversation for a text-protocol model: the tool section joins the system prompt,
 * assistant tool calls become the JSON the model would have written, and each run of tool
 * results becomes one user message (templates of such models often require alternation).
 */
export function toTextProtocolMessages(
  messages: readonly ChatMessage[],
  tools: readonly TextProtocolTool[],
): ChatMessage[] {
  const section = textProtocolSystemSection(tools);
  const out: ChatMessage[] = [];
  const toolNamesById = new Map<string, string>();
  let pendingResults: string[] = [];
  // The results' images go with the user message that carries their text.
  let pendingImages: MessageImage[] = [];
  const flushResults = () => {
    if (pendingResults.length === 0) return;
    const images = pendingImages.length > 0 ? { images: pendingImages } : {};
    out.push({ role: "user", content: pendingResults.join("\n\n"), ...images });
    pendingResults = [];
    pendingImages = [];
  };
  let systemDone = false;
  for (const message of messages) {
    if (message.role === "tool") {
      const name = toolNamesById.get(message.tool_call_id) ?? "tool";
      pendingResults.push(
        `${TEXT_PROTOCOL_RESULT_PREFIX}${name} (${message.tool_call_id}):\n${textOf(message.content)}`,
      );
      pendingImages.push(...(message.images ?? []));
      continue;
    }
    flushResults();
    if (message.role === "system" && !systemDone) {
      out.push({ role: "system", content: `${textOf(message.content)}\n\n${section}` });
      systemDone = true;
      continue;
    }
    if (message.role === "assistant" && message.tool_calls && message.tool_calls.length > 0) {
      const written: string[] = [];
      for (const call of message.tool_calls) {
        if (call.type !== "function") continue;
        toolNamesById.set(call.id, call.function.name);
        written.push(JSON.stringify({ tool: call.function.name, args: parseOrRaw(call.function.arguments) }));
      }
      const calls = written.length === 1 ? written : written.map((w) => `<tool_call>${w}</tool_call>`);
      const text = [textOf(message.content ?? ""), ...calls].filter((t) => t !== "").join("\n");
      out.push({ role: "assistant", content: text });
      continue;
    }
    out.push(message);
  }
  flushResults();
  if (!systemDone) out.unshift({ role: "system", content: section });
  return out;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "object" && part !== null && "text" in part ? String(part.text) : ""))
      .join("");
  }
  return "";
}

function parseOrRaw(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}
