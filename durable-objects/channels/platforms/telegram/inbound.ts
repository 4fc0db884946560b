import { z } from "zod";
import type { ChatAddress, InboundEvent, InboundImage } from "../../platform.js";

/**
 * The parts of a Bot API `Update` edgeloop reads (https://core.telegram.org/bots/api#update):
 * messages (text, photo with caption) and callback queries (a press on an inline button). Other
 * update kinds parse to no events, so Telegram's retries of them stop at once.
 */
const User = z.object({
  id: z.number().int(),
  is_bot: z.boolean().optional(),
  first_name: z.string(),
  last_name: z.string().optional(),
  username: z.string().optional(),
});
const Chat = z.object({ id: z.number().int(), type: z.enum(["private", "group", "supergroup", "channel"]) });
const PhotoSize = z.object({
  file_id: z.string().min(1),
  width: z.number().int(),
  height: z.number().int(),
  file_size: z.number().int().optional(),
});
const Message = z.object({
  message_id: z.number().int(),
  message_thread_id: z.number().int().optional(),
  is_topic_message: z.boolean().optional(),
  from: User.optional(),
  chat: Chat,
  date: z.number().int(),
  text: z.string().optional(),
  caption: z.string().optional(),
  photo: z.array(PhotoSize).optional(),
});
const CallbackQuery = z.object({
  id: z.string().min(1),
  from: User,
  message: z
    .object({
      message_id: z.number().int(),
      message_thread_id: z.number().int().optional(),
      is_topic_message: z.boolean().optional(),
      chat: Chat,
    })
    .optional(),
  data: z.string().max(64).optional(),
});
export const TelegramUpdate = z.object({
  update_id: z.number().int().nonnegative(),
  message: Message.optional(),
  callback_query: CallbackQuery.optional(),
});
export type TelegramUpdate = z.infer<typeof TelegramUpdate>;

const displayName = (u: z.infer<typeof User>) =>
  [u.first_name, u.last_name].filter(Boolean).join(" ") + (u.username ? ` (@${u.username})` : "");

/** A topic in a forum supergroup is its own thread; elsewhere (replies included) the chat is. */
function addressOf(
  chat: z.infer<typeof Chat>,
  threadId: number | undefined,
  isTopic: boolean | undefined,
): ChatAddress {
  return {
    chatId: String(chat.id),
    ...(threadId !== undefined && isTopic === true ? { threadId: String(threadId) } : {}),
  };
}

/** The largest size Telegram offers of a photo is last in the list. */
function imagesOf(m: z.infer<typeof Message>): InboundImage[] {
  const largest = m.photo?.at(-1);
  return largest ? [{ ref: largest.file_id, mediaType: "image/jpeg" }] : [];
}

/** A verified update's events; none for kinds edgeloop does not act on (edits, joins, bots). */
export function eventsOfUpdate(update: TelegramUpdate): InboundEvent[] {
  const eventId = String(update.update_id);
  const m = update.message;
  if (m?.from && !m.from.is_bot) {
    const images = imagesOf(m);
    const text = m.text ?? m.caption ?? "";
    if (text === "" && images.length === 0) return [];
    return [
      {
        kind: "message",
        eventId,
        chat: addressOf(m.chat, m.message_thread_id, m.is_topic_message),
        user: { id: String(m.from.id), name: displayName(m.from) },
        chatType: m.chat.type === "private" ? "direct" : "group",
        text,
        images,
      },
    ];
  }
  const q = update.callback_query;
  if (q?.message && q.data) {
    return [
      {
        kind: "button",
        eventId,
        chat: addressOf(q.message.chat, q.message.message_thread_id, q.message.is_topic_message),
        user: { id: String(q.from.id), name: displayName(q.from) },
        data: q.data,
        messageId: String(q.message.message_id),
        ackToken: q.id,
      },
    ];
  }
  return [];
}
