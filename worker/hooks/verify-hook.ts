import { checkTimestamp, verifyStandardWebhook } from "@edgeloop/protocol";
import { sha256Hex } from "../../runtime/digest.js";
import { sameSecret, verifyHmacSha256Hex } from "../../runtime/hmac-hex.js";
import type { Hook } from "./hook-settings.js";

/** A hook request, as its verification sees it. */
export type HookRequest = {
  header(name: string): string | undefined;
  rawBody: string;
  nowMs: number;
  toleranceSeconds: number;
};

/** Verified: the delivery's own id (the idempotency key) and, for GitHub, the event's name. */
export type HookVerdict = { ok: true; deliveryId: string; event?: string } | { ok: false; reason: string };

/** Without an id from the sender, a delivery is known by its body: a retry sends the same bytes. */
const bodyKey = async (rawBody: string) => `body:${await sha256Hex(rawBody)}`;

/**
 * Verify a hook request by its sender's own scheme:
 * - github: `X-Hub-Signature-256: sha256=<hex HMAC(secret, body)>`, deduplicated by `X-GitHub-Delivery`
 *   (docs.github.com/webhooks/using-webhooks/validating-webhook-deliveries);
 * - standard: Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), by `webhook-id`;
 * - grafana: `X-Grafana-Alerting-Signature: <hex HMAC(secret, "{timestamp}:{body}")>` with
 *   `X-Grafana-Alerting-Timestamp` (the body alone when Grafana sends no timestamp), by the body;
 * - token: the secret itself in a header (Home Assistant's rest_command, anything that can set one).
 * Every secret of the hook is tried (rotation).
 */
export async function verifyHook(hook: Hook, secrets: readonly string[], req: HookRequest): Promise<HookVerdict> {
  switch (hook.verify) {
    case "github": {
      const signature = req.header("x-hub-signature-256")?.trim();
      if (!signature?.startsWith("sha256=")) return { ok: false, reason: "X-Hub-Signature-256 is not sha256=<hex>" };
      if (!(await verifyHmacSha256Hex(secrets, signature.slice(7), req.rawBody)))
        return { ok: false, reason: "X-Hub-Signature-256 does not match" };
      const delivery = req.header("x-github-delivery");
      if (!delivery) return { ok: false, reason: "X-GitHub-Delivery missing" };
      const event = req.header("x-github-event");
      return { ok: true, deliveryId: delivery, ...(event ? { event } : {}) };
    }
    case "standard": {
      const id = req.header("webhook-id");
      const verdict = await verifyStandardWebhook(
        secrets,
        id,
        req.header("webhook-timestamp"),
        req.header("webhook-signature"),
        req.rawBody,
        { nowMs: req.nowMs, toleranceSeconds: req.toleranceSeconds },
      );
      return verdict.ok ? { ok: true, deliveryId: id! } : { ok: false, reason: `webhook-signature: ${verdict.reason}` };
    }
    case "grafana": {
      const signature = req.header("x-grafana-alerting-signature")?.trim() ?? "";
      const timestamp = req.header("x-grafana-alerting-timestamp");
      if (timestamp !== undefined) {
        const fresh = checkTimestamp(timestamp, req.nowMs, req.toleranceSeconds);
        if (!fresh.ok) return { ok: false, reason: `X-Grafana-Alerting-Timestamp: ${fresh.reason}` };
      }
      const content = timestamp !== undefined ? `${timestamp}:${req.rawBody}` : req.rawBody;
      if (!(await verifyHmacSha256Hex(secrets, signature, content)))
        return { ok: false, reason: "X-Grafana-Alerting-Signature missing or does not match" };
      return { ok: true, deliveryId: await bodyKey(req.rawBody) };
    }
    case "token": {
      let given = req.header(hook.token_header)?.trim();
      if (given && hook.token_header.toLowerCase() === "authorization") given = given.replace(/^Bearer\s+/i, "");
      let match = false;
      for (const secret of secrets) if (given && (await sameSecret(given, secret))) match = true;
      if (!match) return { ok: false, reason: `${hook.token_header}: missing or not the hook's secret` };
      const delivery = hook.delivery_header ? req.header(hook.delivery_header) : undefined;
      return { ok: true, deliveryId: delivery ?? (await bodyKey(req.rawBody)) };
    }
  }
}
