import type { ChatMessage, MessageImage } from "./types.js";

/** What the model may be shown (settings/image-settings.ts; docs/images.md). */
export type ImageLimits = {
  /** false: a text-only model, every image is a placeholder */
  vision: boolean;
  maxWidth: number;
  maxHeight: number;
  maxBytes: number;
  /** the latest this many images are sent; older ones become placeholders */
  inContext: number;
};

/**
 * The model's view of the history's images. Pure: walking back from the newest message, the latest
 * `inContext` images within the limits stay attached; every other one is left out, and the
 * message's text says which call it came from and why it is not shown, so the model can ask for it
 * again (a smaller one, a crop) instead of guessing. Messages without images are returned as they
 * are (their serialized form is cached by identity, see llm/request-json.ts), and so is a message
 * whose images all stay.
 */
export function imagesForModel(messages: readonly ChatMessage[], limits: ImageLimits): ChatMessage[] {
  let kept = 0;
  const out = new Array<ChatMessage>(messages.length);
  const callNames = toolCallNames(messages);
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if ((message.role !== "tool" && message.role !== "user") || !message.images?.length) {
      out[i] = message;
      continue;
    }
    const attach: MessageImage[] = [];
    const notes: string[] = [];
    // Within one message the later images count as newer.
    for (let j = message.images.length - 1; j >= 0; j--) {
      const image = message.images[j]!;
      const why = omissionReason(image, limits, kept);
      if (why === null) {
        kept += 1;
        attach.unshift(image);
      } else {
        notes.unshift(
          `[image ${j + 1} (${image.media_type}, ${image.bytes} bytes) ${sourceOf(message, callNames)} not shown: ${why}]`,
        );
      }
    }
    out[i] =
      notes.length === 0
        ? message
        : withImages(message, attach, `${message.content}${message.content ? "\n" : ""}${notes.join("\n")}`);
  }
  return out;
}

function omissionReason(image: MessageImage, limits: ImageLimits, kept: number): string | null {
  if (!limits.vision) return "the model reads text only (LLM_VISION)";
  if (image.width === undefined || image.height === undefined)
    return "its format is not one the model reads (PNG, JPEG, GIF or WebP)";
  if (image.width > limits.maxWidth || image.height > limits.maxHeight)
    return `${image.width}x${image.height} is over the ${limits.maxWidth}x${limits.maxHeight} limit; ask for a smaller one`;
  if (image.bytes > limits.maxBytes) return `${image.bytes} bytes is over the ${limits.maxBytes}-byte limit`;
  if (kept >= limits.inContext) return `only the latest ${limits.inContext} images stay in context`;
  return null;
}

function sourceOf(message: ChatMessage, callNames: Map<string, string>): string {
  if (message.role !== "tool") return "from the user's message";
  const name = callNames.get(message.tool_call_id) ?? "tool";
  return `from the '${name}' call ${message.tool_call_id}`;
}

function withImages(message: ChatMessage, images: MessageImage[], content: string): ChatMessage {
  const { images: _all, ...rest } = message as Extract<ChatMessage, { role: "tool" | "user" }>;
  return { ...rest, content, ...(images.length ? { images } : {}) } as ChatMessage;
}

function toolCallNames(messages: readonly ChatMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages) {
    if (m.role === "assistant") for (const call of m.tool_calls ?? []) names.set(call.id, call.function.name);
  }
  return names;
}
