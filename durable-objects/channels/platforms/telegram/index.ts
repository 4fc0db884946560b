import type { ChatPlatform, InboundResult } from "../../platform.js";
import { settingsWhenSet } from "../common/settings-when-set.js";
import { TelegramClient } from "./client.js";
import { eventsOfUpdate, TelegramUpdate } from "./inbound.js";
import { type TelegramSettings, TelegramSettingsSchema } from "./settings.js";
import { verifyTelegramRequest } from "./verify.js";

/**
 * Telegram through the Bot API: a webhook verified by the secret token header, and a client for
 * the methods the channel uses. Telegram allows about one edit a second in a chat and 4096
 * characters a message; parts are cut shorter because escaping for HTML makes text longer.
 */
export const telegramPlatform: ChatPlatform<TelegramSettings> = {
  name: "telegram",
  title: "Telegram",
  // sendPhoto takes photos up to 10 MB (core.telegram.org/bots/api#sendphoto).
  limits: { maxMessageLength: 3500, minEditIntervalMs: 1000, canEdit: true, photoMaxBytes: 10 * 1000 * 1000 },
  settingsSchema: TelegramSettingsSchema,
  settings: settingsWhenSet(TelegramSettingsSchema),
  async inbound(request: Request, settings: TelegramSettings): Promise<InboundResult> {
    const verified = await verifyTelegramRequest(request.headers, settings.TELEGRAM_WEBHOOK_SECRET);
    if (!verified.ok) return { ok: false, status: 401, reason: verified.reason };
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
  // What `edgeloop channels register telegram` does, as a call to run by hand, against the Bot API
  // this worker uses (TELEGRAM_API_BASE_URL); the secrets stay placeholders.
  registration: (webhookUrl, settings) =>
    [
      `curl -sS ${settings.TELEGRAM_API_BASE_URL}/bot$TELEGRAM_BOT_TOKEN/setWebhook \\`,
      `  -d url=${webhookUrl} \\`,
      "  -d secret_token=$TELEGRAM_WEBHOOK_SECRET \\",
      '  -d allowed_updates=\'["message","callback_query"]\'',
    ].join("\n"),
};
