import { TOOL_IMAGES_TEXT } from "@edgeloop/protocol";
import type { ChatMessage, MessageImage } from "./types.js";

/**
 * Images in the Chat Completions form (OpenAI-compatible servers, and Workers AI's vision models,
 * whose `messages` take the same `image_url` parts with a data URL). Pure.
 *
 * A `tool` message's content is text only in that API, so a tool result keeps its text and the
 * images of a run of consecutive tool results follow in one user message, after the last of them
 * (a message between two tool results would break the "tool results follow the call" rule), as
 * OpenClaw does for such providers. A user message's images are parts of its own content.
 * Only images whose bytes were read for this call (`data`) are sent; the `images` field itself is
 * never sent. Messages without it are returned as they are (their JSON is cached by identity).
 */

/** What an image-only tool result says in its own (text) message. */
export const IMAGE_ONLY_RESULT = "(see attached image)";

type ImagePart = { type: "image_url"; image_url: { url: string } };
export type ChatCompletionsMessage = ChatMessage | { role: "user"; content: Array<TextPart | ImagePart> };
type TextPart = { type: "text"; text: string };

export function chatCompletionsMessages(messages: readonly ChatMessage[]): ChatCompletionsMessage[] {
  if (!messages.some((m) => "images" in m)) return messages as ChatMessage[];
  const out: ChatCompletionsMessage[] = [];
  let pending: ImagePart[] = [];
  const flush = () => {
    if (pending.length > 0) out.push({ role: "user", content: [{ type: "text", text: TOOL_IMAGES_TEXT }, ...pending] });
    pending = [];
  };
  for (const message of messages) {
    if (message.role !== "tool") flush();
    if (message.role === "tool") {
      const parts = imageParts(message.images);
      pending.push(...parts);
      if (!("images" in message)) out.push(message);
      else
        out.push({
          role: "tool",
          tool_call_id: message.tool_call_id,
          content: message.content === "" && parts.length > 0 ? IMAGE_ONLY_RESULT : message.content,
        });
      continue;
    }
    if (message.role === "user" && "images" in message) {
      const parts = imageParts(message.images);
      if (parts.length === 0) out.push({ role: "user", content: message.content });
      else
        out.push({
          role: "user",
          content: [...(message.content ? [{ type: "text" as const, text: message.content }] : []), ...parts],
        });
      continue;
    }
    out.push(message);
  }
  flush();
  return out;
}

function imageParts(images: readonly MessageImage[] | undefined): ImagePart[] {
  return (images ?? []).flatMap((i) =>
    i.data ? [{ type: "image_url" as const, image_url: { url: `data:${i.media_type};base64,${i.data}` } }] : [],
  );
}

/** The images of a message whose bytes were read for this call. */
export function imagesWithData(
  images: readonly MessageImage[] | undefined,
): Required<Pick<MessageImage, "data" | "media_type">>[] {
  return (images ?? []).flatMap((i) => (i.data ? [{ media_type: i.media_type, data: i.data }] : []));
}
