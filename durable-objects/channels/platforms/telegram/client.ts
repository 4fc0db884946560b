import { z } from "zod";
import type {
  ChatAddress,
  InboundEvent,
  InboundImage,
  OutboundMessage,
  PlatformClient,
  SendResult,
} from "../../platform.js";
import { markdownToTelegramHtml } from "./format.js";
import type { TelegramSettings } from "./settings.js";

/** Telegram's answer to every Bot API method (https://core.telegram.org/bots/api#making-requests). */
const ApiAnswer = z.object({
  ok: z.boolean(),
  result: z.unknown().optional(),
  error_code: z.number().int().optional(),
  description: z.string().optional(),
  parameters: z.object({ retry_after: z.number().optional() }).optional(),
});
const SentMessage = z.object({ message_id: z.number().int() });
const FileInfo = z.object({ file_path: z.string().min(1) });

type Call =
  | { ok: true; result: unknown }
  | { ok: false; status: number; retryable: boolean; retryAfterMs?: number; error: string };

/** A photo caption holds at most this many characters; longer text goes in a message of its own. */
const CAPTION_LIMIT = 1024;

/**
 * The Bot API methods edgeloop uses, over fetch at the configured base URL. Errors come back as
 * values shaped for the channel's outbox: 429 and 5xx (and network failures) are retryable, with
 * Telegram's `parameters.retry_after` when it gives one.
 */
export class TelegramClient implements PlatformClient {
  constructor(
    private readonly settings: TelegramSettings,
    private readonly fetchImpl: typeof fetch = (...a) => fetch(...a),
  ) {}

  private methodUrl(method: string) {
    return `${this.settings.TELEGRAM_API_BASE_URL}/bot${this.settings.TELEGRAM_BOT_TOKEN}/${method}`;
  }

  async call(method: string, body: Record<string, unknown> | FormData): Promise<Call> {
    let res: Response;
    try {
      res = await this.fetchImpl(this.methodUrl(method), {
        method: "POST",
        ...(body instanceof FormData
          ? { body }
          : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (e) {
      return { ok: false, status: 0, retryable: true, error: `${method}: ${String(e)}` };
    }
    const answer = ApiAnswer.safeParse(await res.json().catch(() => null));
    if (answer.success && answer.data.ok) return { ok: true, result: answer.data.result };
    const status = answer.success ? (answer.data.error_code ?? res.status) : res.status;
    const retryAfter = answer.success ? answer.data.parameters?.retry_after : undefined;
    return {
      ok: false,
      status,
      retryable: status === 429 || status >= 500 || status === 0,
      ...(retryAfter !== undefined ? { retryAfterMs: retryAfter * 1000 } : {}),
      error: `${method}: ${status} ${answer.success ? (answer.data.description ?? "") : "not a Bot API answer"}`,
    };
  }

  async send(to: ChatAddress, message: OutboundMessage): Promise<SendResult> {
    if (message.image) return this.sendPhoto(to, message);
    return this.withPlainFallback(message, (text, parseMode) =>
      this.call("sendMessage", { ...target(to), text, ...parseMode, ...keyboard(message, false) }),
    );
  }

  async edit(to: ChatAddress, messageId: string, message: OutboundMessage): Promise<SendResult> {
    const sent = await this.withPlainFallback(message, (text, parseMode) =>
      this.call("editMessageText", {
        chat_id: to.chatId,
        message_id: Number(messageId),
        text,
        ...parseMode,
        ...keyboard(message, true),
      }),
    );
    // The same text again (a repeat after a restart) is not an error for the outbox.
    if (!sent.ok && /message is not modified/i.test(sent.error)) return { ok: true, messageId };
    return sent.ok ? { ok: true, messageId } : sent;
  }

  async typing(to: ChatAddress): Promise<void> {
    await this.call("sendChatAction", { ...target(to), action: "typing" });
  }

  async answerButton(event: Extract<InboundEvent, { kind: "button" }>, text: string): Promise<void> {
    if (event.ackToken) await this.call("answerCallbackQuery", { callback_query_id: event.ackToken, text });
  }

  async fetchImage(image: InboundImage): Promise<{ bytes: Uint8Array; mediaType: string }> {
    const info = await this.call("getFile", { file_id: image.ref });
    if (!info.ok) throw new Error(info.error);
    const file = FileInfo.parse(info.result);
    const res = await this.fetchImpl(
      `${this.settings.TELEGRAM_API_BASE_URL}/file/bot${this.settings.TELEGRAM_BOT_TOKEN}/${file.file_path}`,
    );
    if (!res.ok) throw new Error(`file download: HTTP ${res.status}`);
    return { bytes: new Uint8Array(await res.arrayBuffer()), mediaType: image.mediaType ?? "image/jpeg" };
  }

  /** `setWebhook` with the secret Telegram will send back, as `edgeloop channels register telegram` makes it. */
  async registerWebhook(webhookUrl: string): Promise<{ ok: boolean; detail: string }> {
    const res = await this.call("setWebhook", {
      url: webhookUrl,
      secret_token: this.settings.TELEGRAM_WEBHOOK_SECRET,
      allowed_updates: ["message", "callback_query"],
    });
    return res.ok
      ? { ok: true, detail: `Telegram will post updates to ${webhookUrl}` }
      : { ok: false, detail: res.error };
  }

  private async sendPhoto(to: ChatAddress, message: OutboundMessage): Promise<SendResult> {
    const image = message.image!;
    const caption = image.caption ?? message.markdown;
    const form = new FormData();
    for (const [k, v] of Object.entries(target(to))) form.set(k, String(v));
    // A copy: Blob takes bytes backed by a plain ArrayBuffer.
    form.set("photo", new Blob([new Uint8Array(image.bytes)], { type: image.mediaType }), "image");
    if (caption && caption.length <= CAPTION_LIMIT) form.set("caption", caption);
    const sent = await this.call("sendPhoto", form);
    if (!sent.ok) return sent;
    const id = String(SentMessage.parse(sent.result).message_id);
    if (caption && caption.length > CAPTION_LIMIT) return this.send(to, { markdown: caption });
    return { ok: true, messageId: id };
  }

  /** HTML first; text Telegram cannot parse as HTML goes again as plain text rather than not at all. */
  private async withPlainFallback(
    message: OutboundMessage,
    call: (text: string, parseMode: { parse_mode?: "HTML" }) => Promise<Call>,
  ): Promise<SendResult> {
    let sent = await call(markdownToTelegramHtml(message.markdown), { parse_mode: "HTML" });
    if (!sent.ok && sent.status === 400 && /can't parse entities/i.test(sent.error))
      sent = await call(message.markdown, {});
    if (!sent.ok) return sent;
    const parsed = SentMessage.safeParse(sent.result);
    return { ok: true, messageId: parsed.success ? String(parsed.data.message_id) : "" };
  }
}

function target(to: ChatAddress): Record<string, string | number> {
  return { chat_id: to.chatId, ...(to.threadId ? { message_thread_id: Number(to.threadId) } : {}) };
}

/** Inline buttons; an edit with none removes the old ones (a decided card keeps no buttons). */
function keyboard(message: OutboundMessage, editing: boolean): Record<string, unknown> {
  if (!message.buttons?.length) return editing ? { reply_markup: { inline_keyboard: [] } } : {};
  return {
    reply_markup: {
      inline_keyboard: message.buttons.map((row) => row.map((b) => ({ text: b.label, callback_data: b.data }))),
    },
  };
}
