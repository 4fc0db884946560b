import {
  HMAC_SIGNATURE_HEADER,
  HMAC_TIMESTAMP_HEADER,
  IDEMPOTENCY_KEY_HEADER,
  IdempotencyKey,
  STANDARD_ID_HEADER,
  STANDARD_SIGNATURE_HEADER,
  STANDARD_TIMESTAMP_HEADER,
  verifyHmacWebhook,
  verifyStandardWebhook,
} from "@edgeloop/protocol";
import { KEY_PREFIX } from "@edgeloop/protocol/api-keys";
import type { AuthMethod, WorkerConfig } from "../../durable-objects/front-door/front-door-config.js";
import { hasScope, type Principal, scopedPrincipal, unscoped } from "../../runtime/access.js";
import { problemResponse } from "../../runtime/problem.js";
import { bearerToken } from "./access-verdict.js";
import { CSRF_HEADER, sessionRefusal } from "./dashboard-session.js";

/**
 * Who sent a message: the principal (runtime/access.ts) whose id scopes rate limits and
 * idempotency — `api` / `admin` for the bearer tokens, `key:<id>` for a scoped key,
 * `webhook:<name>` for a signed webhook (the name is the secret's, see WEBHOOK_SECRETS; bound to
 * devices by WEBHOOK_SCOPES). `idempotencyKey` is the key the request is deduplicated by, if any.
 */
export type Sender = { principal: Principal; method: AuthMethod; idempotencyKey: string | null };

type AuthResult = { ok: true; sender: Sender } | { ok: false; response: Response };

/** What of the request is read: its method and headers (Hono's request is one). */
export type SenderRequest = { method: string; header(name: string): string | undefined };

/** The settings that decide who may send. */
export type SenderConfig = Pick<
  WorkerConfig,
  | "API_TOKEN"
  | "ADMIN_TOKEN"
  | "MESSAGE_AUTH"
  | "WEBHOOK_SECRETS"
  | "WEBHOOK_TOLERANCE_SECONDS"
  | "WEBHOOK_SCOPES"
  | "POOLS"
>;

/**
 * The deployment's answers, given by authorize.ts: the principal a bearer token stands for
 * (credentials.ts `principalForBearer`), and the answer naming settings it lacks (missing-settings.ts).
 * Taken as arguments so this file needs no Workers binding and Node's unit tests reach it.
 */
export type SenderLookups = {
  bearer(token: string): Promise<Principal | null>;
  notConfigured(requirement: "API_TOKEN or ADMIN_TOKEN" | "WEBHOOK_SECRETS"): Response;
};

const unauthorized = (detail: string) => ({
  ok: false as const,
  response: problemResponse(401, "Unauthorized", detail, {}, { "www-authenticate": "Bearer" }),
});

/** The method a request uses, from the headers it carries (a signature wins over a bearer). */
function methodOf(req: SenderRequest): AuthMethod | null {
  if (req.header(STANDARD_SIGNATURE_HEADER)) return "standard";
  if (req.header(HMAC_SIGNATURE_HEADER)) return "hmac";
  if (req.header("authorization")) return "bearer";
  return null;
}

/**
 * Authenticate `POST /v1/messages` by whichever of the deployment's methods the request uses. A
 * request with neither a signature nor an Authorization header may be the dashboard: its session
 * cookie stands for the admin token (so it needs `bearer` in MESSAGE_AUTH) and, this being a write,
 * it must carry `X-Edgeloop-CSRF: 1`. A request that has either header is judged by it alone, so a
 * cookie never helps a webhook.
 */
export async function authenticateMessage(
  req: SenderRequest,
  rawBody: string,
  cfg: SenderConfig,
  cookieSession: string | undefined,
  lookups: SenderLookups,
): Promise<AuthResult> {
  const method = methodOf(req);
  const session = method ? undefined : cookieSession;
  if (!method && (session === undefined || !cfg.ADMIN_TOKEN))
    return unauthorized(
      "send Authorization: Bearer <token>, or a signed webhook (X-Webhook-Signature or webhook-signature)",
    );
  if (!cfg.MESSAGE_AUTH.has(method ?? "bearer"))
    return unauthorized(
      method
        ? `authentication by '${method}' is not enabled here (MESSAGE_AUTH)`
        : "the dashboard session stands for the admin token, and bearer authentication is not enabled here (MESSAGE_AUTH)",
    );

  const explicitKey = req.header(IDEMPOTENCY_KEY_HEADER) ?? null;
  if (explicitKey !== null && !IdempotencyKey.safeParse(explicitKey).success) {
    return { ok: false, response: problemResponse(400, "Invalid Idempotency-Key", "1-255 visible ASCII characters") };
  }

  if (!method) {
    const refused = await sessionRefusal(cfg.ADMIN_TOKEN!, session!, req.method, req.header(CSRF_HEADER));
    if (refused) return { ok: false, response: refused };
    // The same sender as the admin token itself: one rate limit and idempotency scope for both.
    return { ok: true, sender: { principal: unscoped("admin", true), method: "bearer", idempotencyKey: explicitKey } };
  }
  const secrets = cfg.WEBHOOK_SECRETS.map((s) => s.secret);
  const opts = { nowMs: Date.now(), toleranceSeconds: cfg.WEBHOOK_TOLERANCE_SECONDS };

  if (method === "bearer") {
    const token = bearerToken(req.header("authorization"));
    if (!token) return unauthorized("send Authorization: Bearer <token>");
    if (!cfg.API_TOKEN && !cfg.ADMIN_TOKEN && !token.startsWith(KEY_PREFIX))
      return { ok: false, response: lookups.notConfigured("API_TOKEN or ADMIN_TOKEN") };
    const principal = await lookups.bearer(token);
    if (!principal) return unauthorized("invalid token");
    if (!hasScope(principal, "messages"))
      return { ok: false, response: problemResponse(403, "Forbidden", "this key does not have the scope 'messages'") };
    return { ok: true, sender: { principal, method, idempotencyKey: explicitKey } };
  }

  if (secrets.length === 0) return { ok: false, response: lookups.notConfigured("WEBHOOK_SECRETS") };

  if (method === "hmac") {
    const header = req.header(HMAC_SIGNATURE_HEADER);
    const verified = await verifyHmacWebhook(secrets, header, req.header(HMAC_TIMESTAMP_HEADER), rawBody, opts);
    if (!verified.ok) return unauthorized(`X-Webhook-Signature: ${verified.reason}`);
    // Without an Idempotency-Key the signature itself is the key: an exact replay inside the
    // tolerance window is answered from the store and starts nothing.
    const key = explicitKey ?? `sig:${header!.trim().toLowerCase()}`;
    return {
      ok: true,
      sender: { principal: webhookPrincipal(cfg, verified.secretIndex), method, idempotencyKey: key },
    };
  }

  const id = req.header(STANDARD_ID_HEADER);
  if (id !== undefined && !IdempotencyKey.safeParse(id).success)
    return unauthorized("webhook-id: 1-255 visible ASCII characters");
  const verified = await verifyStandardWebhook(
    secrets,
    id,
    req.header(STANDARD_TIMESTAMP_HEADER),
    req.header(STANDARD_SIGNATURE_HEADER),
    rawBody,
    opts,
  );
  if (!verified.ok) return unauthorized(`webhook-signature: ${verified.reason}`);
  // Standard Webhooks senders retry with the same webhook-id: that is the idempotency key.
  return {
    ok: true,
    sender: { principal: webhookPrincipal(cfg, verified.secretIndex), method, idempotencyKey: id! },
  };
}

/** A webhook sender: bound to its devices when WEBHOOK_SCOPES names it, unscoped otherwise. */
function webhookPrincipal(cfg: SenderConfig, secretIndex: number): Principal {
  const name = cfg.WEBHOOK_SECRETS[secretIndex]!.sender;
  const grant = cfg.WEBHOOK_SCOPES?.[name];
  const id = `webhook:${name}`;
  return grant ? scopedPrincipal(id, { ...grant, scopes: ["messages"] }, cfg.POOLS) : unscoped(id);
}
