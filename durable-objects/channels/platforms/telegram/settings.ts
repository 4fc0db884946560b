import { z } from "zod";

/**
 * Telegram's settings, as the worker's vars name them. The bot token and the webhook secret are
 * secrets (`wrangler secret put`); the API base URL is a setting so tests (and a local Bot API
 * server) can stand in for api.telegram.org. The channel is on when the secrets are set.
 */
export const TelegramSettingsSchema = z.object({
  TELEGRAM_BOT_TOKEN: z
    .string()
    // Only what would break the method URL is refused: Telegram itself says whether a token is good.
    .regex(/^[^\s/?#]+$/, "a bot token from @BotFather (123456:ABC-DEF…), without spaces or slashes")
    .describe(
      "Secret. The Telegram bot's token from @BotFather; with TELEGRAM_WEBHOOK_SECRET it turns the channel on.",
    ),
  TELEGRAM_WEBHOOK_SECRET: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,256}$/, "1-256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule for secret_token)")
    .describe(
      "Secret. The `secret_token` given to setWebhook: 1-256 characters of `A-Z a-z 0-9 _ -` (Telegram's rule; " +
        "use a long random one: `openssl rand -hex 32`). Telegram sends it back in `X-Telegram-Bot-Api-Secret-Token` " +
        "and a request without it is refused.",
    ),
  TELEGRAM_API_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .default("https://api.telegram.org")
    .transform((u) => u.replace(/\/+$/, ""))
    .describe("The Bot API's base URL (a local Bot API server, or a stand-in in tests)."),
});

export type TelegramSettings = z.output<typeof TelegramSettingsSchema>;
