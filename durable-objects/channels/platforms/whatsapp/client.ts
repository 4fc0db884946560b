import type { ChatAddress, InboundImage, OutboundMessage, PlatformClient, SendResult } from "../../platform.js";
import {
  fetchBytes,
  httpFailure,
  isPlatformUrl,
  type PlatformAnswer,
  platformCall,
  retryAfterHeaderMs,
} from "../common/platform-call.js";
import { BODY_MAX, interactiveAction, toWhatsAppText } from "./format.js";
import type { WhatsAppSettings } from "./settings.js";

/** Where the Cloud API serves media bytes. */
const META_MEDIA_HOSTS = ["lookaside.fbsbx.com"];

/**
 * Graph API error codes that mean "too fast" (developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes):
 * app or account throughput, spam rate limit, pair rate limit. Worth another try later.
 */
const THROTTLE_CODES = new Set([4, 80007, 130429, 131048, 131056]);

function interpret(answer: PlatformAnswer, idOf: (body: Record<string, unknown>) => unknown): SendResult {
  const body = (typeof answer.body === "object" && answer.body !== null ? answer.body : {}) as Record<string, unknown>;
  if (answer.status >= 200 && answer.status < 300) return { ok: true, messageId: String(idOf(body) ?? "") };
  const error = (body.error ?? {}) as { message?: string; code?: number };
  const detail = `${error.message ?? ""}${error.code !== undefined ? ` (code ${error.code})` : ""}`;
  if (error.code !== undefined && THROTTLE_CODES.has(error.code))
    return { ok: false, retryable: true, retryAfterMs: retryAfterHeaderMs(answer.headers) ?? 60_000, error: detail };
  return httpFailure(answer, detail, retryAfterHeaderMs(answer.headers));
}

const messageId = (b: Record<string, unknown>) => (b.messages as { id?: string }[] | undefined)?.[0]?.id;

export function whatsappClient(settings: WhatsAppSettings, fetchImpl: typeof fetch = fetch): PlatformClient {
  const graph = `${settings.WHATSAPP_API_BASE_URL}/${settings.WHATSAPP_API_VERSION}`;
  const phone = `${graph}/${settings.WHATSAPP_PHONE_NUMBER_ID}`;
  const auth = { authorization: `Bearer ${settings.WHATSAPP_ACCESS_TOKEN}` };
  const post = (to: ChatAddress, content: Record<string, unknown>) =>
    platformCall(
      fetchImpl,
      `${phone}/messages`,
      {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({
          messaging_product: "whatsapp",
          recipient_type: "individual",
          to: to.chatId,
          ...content,
        }),
      },
      (a) => interpret(a, messageId),
    );

  /** A status update on a received message (read, with or without the typing indicator); `{"success":true}`. */
  const status = (fields: Record<string, unknown>) =>
    platformCall(
      fetchImpl,
      `${phone}/messages`,
      {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ messaging_product: "whatsapp", status: "read", ...fields }),
      },
      (a) => interpret(a, () => ""),
    );

  /** Upload the bytes (POST /{phone}/media), then send the image by its media id. */
  async function sendImage(to: ChatAddress, message: OutboundMessage): Promise<SendResult> {
    const image = message.image!;
    const form = new FormData();
    form.append("messaging_product", "whatsapp");
    form.append("type", image.mediaType);
    form.append("file", new Blob([image.bytes as Uint8Array<ArrayBuffer>], { type: image.mediaType }), "image");
    const uploaded = await platformCall(
      fetchImpl,
      `${phone}/media`,
      { method: "POST", headers: auth, body: form },
      (a) => interpret(a, (b) => b.id),
    );
    if (!uploaded.ok) return uploaded;
    const caption = toWhatsAppText(image.caption ?? message.markdown);
    return post(to, { type: "image", image: { id: uploaded.messageId, ...(caption ? { caption } : {}) } });
  }

  async function send(to: ChatAddress, message: OutboundMessage): Promise<SendResult> {
    if (message.image) return sendImage(to, message);
    const text = toWhatsAppText(message.markdown);
    const buttons = message.buttons?.flat() ?? [];
    if (buttons.length === 0) return post(to, { type: "text", text: { preview_url: false, body: text } });
    // An interactive body holds 1024 characters: a longer text goes first on its own.
    let body = text;
    if (text.length > BODY_MAX) {
      const first = await post(to, { type: "text", text: { preview_url: false, body: text } });
      if (!first.ok) return first;
      body = "⬆️";
    }
    return post(to, { type: "interactive", interactive: interactiveAction(message.buttons!, body || "…") });
  }

  return {
    send,
    // WhatsApp cannot edit a message (limits.canEdit is false, so replies are not streamed): a card's
    // update — "approved by …" — goes out as a new message instead.
    edit: (to, _messageId, message) => send(to, { ...message, buttons: [] }),
    // The Cloud API's typing indicator marks the message being answered read and shows "typing…" until the
    // reply or for 25 s (developers.facebook.com/documentation/business-messaging/whatsapp/typing-indicators);
    // it needs that message's id, so a call without one shows nothing.
    async typing(_to, inReplyTo) {
      if (inReplyTo) await status({ message_id: inReplyTo, typing_indicator: { type: "text" } });
    },
    // The blue ticks: the same call without the indicator.
    async markRead(_to, messageId) {
      await status({ message_id: messageId });
    },
    // WhatsApp shows no toast for a button reply: the presser is told in a reply to the card, in their own chat.
    async answerButton(event, text) {
      await post(event.chat, {
        type: "text",
        context: { message_id: event.messageId },
        text: { preview_url: false, body: toWhatsAppText(text) },
      });
    },
    async fetchImage(image: InboundImage) {
      // The media id resolves to a short-lived URL, fetched with the same token.
      const res = await fetchImpl(`${graph}/${encodeURIComponent(image.ref)}`, { headers: auth });
      if (!res.ok) throw new Error(`resolving WhatsApp media failed: HTTP ${res.status}`);
      const info = (await res.json()) as { url?: string; mime_type?: string };
      if (!info.url || !isPlatformUrl(info.url, settings.WHATSAPP_API_BASE_URL, META_MEDIA_HOSTS))
        throw new Error("WhatsApp media URL is not on Meta's hosts; the token is not sent elsewhere");
      const got = await fetchBytes(fetchImpl, info.url, auth);
      return { bytes: got.bytes, mediaType: info.mime_type ?? got.mediaType };
    },
  };
}
