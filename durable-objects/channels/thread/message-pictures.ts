import { log } from "../../../runtime/log.js";
import { imageSettings } from "../../conversation/settings/image-settings.js";
import { type FetchedPicture, type PicturesOutcome, picturesForMessage } from "../chat-content/chat-pictures.js";
import type { InboundImage } from "../platform.js";
import type { ThreadContext } from "./thread-context.js";

/**
 * The pictures of a chat message, fetched from the platform (Telegram getFile and its file URL,
 * Slack's url_private, …) and made a message's `images` within the deployment's limits
 * (docs/channels.md#pictures). Fetched when the thread handles the message, never at the webhook,
 * so the platform's deadline is met whatever the picture's size.
 */
export async function picturesOf(ctx: ThreadContext, images: InboundImage[]): Promise<PicturesOutcome> {
  if (images.length === 0) return { ok: true, images: [] };
  const settings = imageSettings(ctx.env);
  if (!settings.ok) return { ok: false, reason: "edgeloop is misconfigured; ask an admin." };
  const fetched: FetchedPicture[] = [];
  for (const image of images) {
    try {
      fetched.push(await ctx.client.fetchImage(image));
    } catch (e) {
      log("warn", "chat picture not fetched", { thread: ctx.identity.key, error: String(e) });
      return { ok: false, reason: "Not sent: your picture could not be fetched from the chat; please send it again." };
    }
  }
  return picturesForMessage(fetched, settings.value.messageImagesMaxBytes);
}
