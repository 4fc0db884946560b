import { sameSecret } from "../../../../runtime/same-secret.js";
import type { ChatPlatform, InboundResult } from "../../platform.js";
import { TelegramClient } from "./telegram-client.js";
import type { TelegramSettings } from "./telegram-settings.js";
import { eventsOfUpdate, TelegramUpdate } from "./telegram-update.js";

/** Telegram sends the webhook's `secret_token` back in this header on every update. */
export const TELEGRAM_SECRET_HEADER = "x-telegram-bot-api-secret-token";

/**
 * Telegram through the Bot API: a webhook verified by the secret token header, and a client for
 * the methods the channel uses. Telegram allows about one edit a second in a chat and 4096
 * characters a message; parts are cut shorter because escaping for HTML makes text longer.
 */
export const telegram: ChatPlatform<TelegramSettings> = {
  name: "telegram",
  limits: { maxMessageLength: 3500, minEditIntervalMs: 1000, canEdit: true },
  async inbound(request: Request, settings: TelegramSettings): Promise<InboundResult> {
    const token = request.headers.get(TELEGRAM_SECRET_HEADER);
    if (token === null) return { ok: false, status: 401, reason: `missing ${TELEGRAM_SECRET_HEADER}` };
    if (!(await sameSecret(token, settings.webhookSecret)))
      return { ok: false, status: 401, reason: `wrong ${TELEGRAM_SECRET_HEADER}` };
    let json: unknown;
    try {
      json = await request.json();
    } catch {
      return { ok: false, status: 400, reason: "the body is not JSON" };
    }
    const update = TelegramUpdate.safeParse(json);
    if (!update.success)
      return { ok: false, status: 400, reason: `not a Telegram update: ${update.error.issues[0]?.message}` };
    return { ok: true, events: eventsOfUpdate(update.data) };
  },
  client: (settings, fetchImpl) => new TelegramClient(settings, fetchImpl),
};
