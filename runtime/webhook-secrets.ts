import { z } from "zod";

/** One secret a webhook sender signs with; `sender` names it for rate limits and idempotency. */
export type WebhookSecret = { sender: string; secret: string };

/**
 * `WEBHOOK_SECRETS`: comma-separated `sender:secret`, or a bare `secret` (sender "webhook");
 * a sender repeated is a rotation. Read by the front door (to verify) and by conversations (to sign
 * their reply_url deliveries when no REPLY_SIGNING_SECRET is set).
 */
export const WebhookSecrets = z
  .string()
  .default("")
  .transform((raw) =>
    raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .map((entry): WebhookSecret => {
        // A name is letters/digits/-/_ before the first ':'; base64 and whsec_ secrets have no ':'.
        const m = entry.match(/^([A-Za-z0-9_-]{1,64}):(.+)$/);
        return m ? { sender: m[1]!, secret: m[2]! } : { sender: "webhook", secret: entry };
      }),
  )
  .describe(
    "Secret. Comma-separated secrets for signed webhooks, each `secret` or `sender:secret` (the sender name " +
      "scopes rate limits and idempotency); `whsec_<base64>` is decoded; several at once for rotation.",
  );
