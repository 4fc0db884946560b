import type { ConversationEvent } from "@edgeloop/protocol";
import { conversationFor } from "../../addresses.js";
import type { StoredImage } from "../../conversation/conversation-rpc.js";
import { imageRefsOf, photoCaption, photoTooLarge } from "../chat-content/chat-pictures.js";
import type { SendResult } from "../platform.js";
import type { ThreadContext } from "./thread-context.js";
import type { SendOp } from "./thread-store.js";

type ToolEnd = Extract<ConversationEvent, { type: "tool_execution_end" }>;

/**
 * A tool's pictures go to the chat as photos (docs/channels.md#pictures): one outbox row per
 * image, keyed by the call and the image's hash so events read again after a restart queue
 * nothing twice, and holding the hash only: the bytes stay in the conversation's image store.
 */
export function queueToolPictures(
  ctx: ThreadContext,
  conversationId: string,
  agentId: string,
  event: ToolEnd,
  now: number,
): void {
  for (const ref of imageRefsOf(event.result)) {
    const op: SendOp = {
      type: "photo",
      conversation_id: conversationId,
      sha256: ref.sha256,
      bytes: ref.bytes,
      caption: photoCaption(event.toolName, agentId),
    };
    ctx.store.enqueue(`photo:${conversationId}:${event.toolCallId}:${ref.sha256}`, op, now);
  }
}

/**
 * Send one queued picture: its bytes read from the conversation (getImage) at the moment of
 * sending, so the outbox never holds them. A picture over the platform's photo limit, or no
 * longer stored, becomes a line saying so; a 429/5xx comes back retryable like any send.
 */
export async function sendToolPicture(ctx: ThreadContext, op: Extract<SendOp, { type: "photo" }>): Promise<SendResult> {
  const { client, identity } = ctx;
  const tooLarge = photoTooLarge(ctx.platform, op.bytes, op.caption);
  if (tooLarge) return client.send(identity.chat, { markdown: tooLarge });
  let image: StoredImage | null;
  try {
    image = await conversationFor(ctx.env, op.conversation_id).getImage(op.sha256);
  } catch (e) {
    // The conversation's object restarting or overloaded: tried again later, like a platform's 5xx.
    return { ok: false, retryable: true, error: `reading the picture: ${String(e)}` };
  }
  if (!image) return client.send(identity.chat, { markdown: `${op.caption}: the picture is no longer stored.` });
  return client.send(identity.chat, {
    markdown: op.caption,
    image: { bytes: image.bytes, mediaType: image.media_type, caption: op.caption },
  });
}
