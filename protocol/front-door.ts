import { z } from "zod";
import { Identifier, ToolName } from "./ids.js";

/** Headers of the signed-webhook schemes `POST /v1/messages` accepts (see docs/protocol.md). */
export const HMAC_SIGNATURE_HEADER = "x-webhook-signature";
export const HMAC_TIMESTAMP_HEADER = "x-webhook-timestamp";
export const STANDARD_ID_HEADER = "webhook-id";
export const STANDARD_TIMESTAMP_HEADER = "webhook-timestamp";
export const STANDARD_SIGNATURE_HEADER = "webhook-signature";
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
/** Set on a response that is a stored copy of the first answer to the same idempotency key. */
export const IDEMPOTENT_REPLAYED_HEADER = "idempotent-replayed";

/** Idempotency keys and webhook ids: visible ASCII, bounded. */
export const IdempotencyKey = z.string().regex(/^[\x21-\x7e]{1,255}$/, "1-255 visible ASCII characters");

/** `GET /v1/audit` query. `since` is an ISO date or unix milliseconds. */
/** `since=` as an ISO date or unix milliseconds. */
export const SinceParam = z.string().transform((s, ctx) => {
  const n = /^\d+$/.test(s) ? Number(s) : Date.parse(s);
  if (!Number.isFinite(n)) {
    ctx.addIssue({ code: "custom", message: "an ISO date or unix milliseconds" });
    return z.NEVER;
  }
  return n;
});

export const AuditQueryParams = z
  .object({
    agent_id: Identifier.optional(),
    tool: ToolName.optional(),
    since: SinceParam.optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
  })
  .strict();
export type AuditQueryParams = z.infer<typeof AuditQueryParams>;
