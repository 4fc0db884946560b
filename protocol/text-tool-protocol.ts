/**
 * A model without native tool calling gets each tool result back as a user message starting
 * with this prefix and the tool's name. The loop writes them (conversation/llm/), and a model
 * server can tell them apart from what the person wrote (the scripted model does).
 */
export const TEXT_PROTOCOL_RESULT_PREFIX = "Tool result for ";

export function isTextProtocolToolResult(text: string): boolean {
  return text.startsWith(TEXT_PROTOCOL_RESULT_PREFIX);
}
