/**
 * The Chat Completions request rules a real server enforces that edgeloop's image and tool-result
 * messages could break, so a wrong shape fails here as it would there (400, OpenAI's wording):
 * image parts only in user messages, as data URLs of the four types models read (or http URLs),
 * and no other message between an assistant's tool calls and their results.
 */

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const DATA_URL = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$/;

export function chatRequestProblem(messages: unknown[]): string | null {
  let open: string[] = [];
  /** another message came after the assistant's calls: a result after it is out of place */
  let interrupted = false;
  for (const [i, message] of messages.entries()) {
    if (!isObject(message)) return `Invalid 'messages[${i}]': expected an object`;
    if (message.role === "tool" && interrupted && open.includes(String(message.tool_call_id))) {
      return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages[${i}] follows a message of another role)`;
    }
    if (message.role === "tool") open = open.filter((id) => id !== message.tool_call_id);
    else interrupted = open.length > 0;
    if (message.role === "assistant" && Array.isArray(message.tool_calls)) {
      open = message.tool_calls.flatMap((c) => (isObject(c) && typeof c.id === "string" ? [c.id] : []));
      interrupted = false;
    }
    if (!Array.isArray(message.content)) continue;
    for (const [j, part] of message.content.entries()) {
      if (!isObject(part) || part.type !== "image_url") continue;
      if (message.role !== "user") {
        return `Invalid 'messages[${i}]'. Image URLs are only allowed for messages with role 'user', but this message with role '${String(message.role)}' contains an image URL.`;
      }
      const url = isObject(part.image_url) ? part.image_url.url : undefined;
      if (typeof url !== "string" || !(DATA_URL.test(url) || /^https?:\/\//.test(url))) {
        return `Invalid 'messages[${i}].content[${j}].image_url.url': expected a base64 data URL of a PNG, JPEG, GIF or WebP image, or an http(s) URL.`;
      }
    }
  }
  return null;
}
