import { z } from "zod";
import { parseVars, type VarsOf } from "../../../../runtime/vars.js";

/**
 * Telegram's settings. The bot token and the webhook secret are secrets (`wrangler secret put`);
 * the API base URL is a setting so tests (and a local Bot API server) can stand in for
 * api.telegram.org. The channel is off until both secrets are set.
 */
export const TelegramVarsSchema = z.object({
  TELEGRAM_BOT_TOKEN: z
    .string()
    // Only what would break the method URL is refused: Telegram itself says whether a token is good.
    .regex(/^[^\s/?#]+$/, "a bot token from @BotFather (123456:ABC-DEF…), without spaces or slashes")
    .optional()
    .describe(
      "Secret. The Telegram bot's token from @BotFather; with TELEGRAM_WEBHOOK_SECRET it turns the channel on.",
    ),
  TELEGRAM_WEBHOOK_SECRET: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,256}$/, "1-256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule for secret_token)")
    .optional()
    .describe(
      "Secret. The `secret_token` given to setWebhook (use a long random one: `openssl rand -hex 32`); Telegram " +
        "sends it back in `X-Telegram-Bot-Api-Secret-Token` and a request without it is refused.",
    ),
  TELEGRAM_API_BASE_URL: z
    .string()
    .url()
    .default("https://api.telegram.org")
    .describe("The Bot API's base URL (a local Bot API server, or a stand-in in tests)."),
});
export type TelegramVars = VarsOf<typeof TelegramVarsSchema.shape>;

export type TelegramSettings = { botToken: string; webhookSecret: string; apiBaseUrl: string };

/** The channel's settings; null when it is not configured, an error when a value is bad. */
export function telegramSettings(
  env: object,
): { ok: true; value: TelegramSettings | null } | { ok: false; error: string } {
  const parsed = parseVars(TelegramVarsSchema, env);
  if (!parsed.ok) return parsed;
  const v = parsed.value;
  if (!v.TELEGRAM_BOT_TOKEN || !v.TELEGRAM_WEBHOOK_SECRET) return { ok: true, value: null };
  return {
    ok: true,
    value: {
      botToken: v.TELEGRAM_BOT_TOKEN,
      webhookSecret: v.TELEGRAM_WEBHOOK_SECRET,
      apiBaseUrl: v.TELEGRAM_API_BASE_URL.replace(/\/+$/, ""),
    },
  };
}
