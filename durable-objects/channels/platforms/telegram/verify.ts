import { sameSecret } from "../../../../runtime/same-secret.js";

/** Telegram sends the webhook's `secret_token` back in this header on every update. */
export const TELEGRAM_SECRET_HEADER = "x-telegram-bot-api-secret-token";

/**
 * Telegram's webhook check (core.telegram.org/bots/api#setwebhook): the `secret_token` given to
 * setWebhook comes back in `X-Telegram-Bot-Api-Secret-Token`. Telegram signs nothing else; a replay
 * is caught by the update id, the dedupe key.
 */
export async function verifyTelegramRequest(
  headers: Headers,
  webhookSecret: string,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const token = headers.get(TELEGRAM_SECRET_HEADER);
  if (token === null) return { ok: false, reason: `missing ${TELEGRAM_SECRET_HEADER}` };
  if (!(await sameSecret(token, webhookSecret))) return { ok: false, reason: `wrong ${TELEGRAM_SECRET_HEADER}` };
  return { ok: true };
}
