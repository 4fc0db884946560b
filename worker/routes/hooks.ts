import { IdempotencyKey, type MessageRequest } from "@edgeloop/protocol";
import { Hono } from "hono";
import { acceptMessage } from "../../durable-objects/front-door/accept-message.js";
import { scopedPrincipal } from "../../runtime/access.js";
import { problemResponse } from "../../runtime/problem.js";
import type { AppEnv } from "../env.js";
import { announceHookRun, hookReplyThread } from "../hooks/hook-reply.js";
import { type Hook, hooksSettings } from "../hooks/hook-settings.js";
import { renderTemplate } from "../hooks/render-template.js";
import { verifyHook } from "../hooks/verify-hook.js";
import { countRejections } from "../middleware/count-rejections.js";
import { readRawBody } from "../read-body.js";
import { messageResponse } from "./message-response.js";

export const hooks = new Hono<AppEnv>();

hooks.use("*", countRejections("POST /v1/hooks/:name"));

const PAYLOAD_CHARS = 4000;

/** The payload: JSON, or GitHub's form encoding (`payload=<json>`) when a hook was set up that way. */
function parsePayload(rawBody: string, contentType: string | undefined): unknown {
  const json = contentType?.startsWith("application/x-www-form-urlencoded")
    ? new URLSearchParams(rawBody).get("payload")
    : rawBody;
  if (json === null) return undefined;
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

function messageText(hook: Hook, payload: unknown, facts: Record<string, string>): string {
  const text = renderTemplate(hook.template, payload, facts).trim();
  if (!hook.append_payload) return text;
  const json = JSON.stringify(payload);
  return `${text}\n\n${json.length > PAYLOAD_CHARS ? `${json.slice(0, PAYLOAD_CHARS)}…` : json}`;
}

/**
 * POST /v1/hooks/:name — another service's webhook as a message: the hook (HOOKS) → its sender's
 * signature (verify-hook.ts) → the payload through the hook's template → the front door
 * (accept-message.ts) as the principal `hook:<name>`, bound to the hook's device, fleet or pool, with the
 * delivery's own id as the idempotency key, so a redelivery is answered from the store and starts no
 * second run (docs/architecture.md#the-front-door). Answered 202 as soon as the conversation has the message.
 */
hooks.post("/:name", async (c) => {
  const name = c.req.param("name");
  const settings = hooksSettings(c.env);
  if (!settings.ok) return problemResponse(500, "Server misconfigured", settings.error);
  const hook = settings.value.HOOKS?.[name];
  if (!hook) return problemResponse(404, "Not found", `no hook named '${name}' (HOOKS)`);
  const cfg = c.var.config;
  const body = await readRawBody(c, cfg.MAX_BODY_BYTES);
  if (!body.ok) return body.response;
  const rawBody = body.value;

  const secrets = settings.value.HOOK_SECRETS.filter((s) => s.sender === name).map((s) => s.secret);
  const verdict = await verifyHook(hook, secrets, {
    header: (h) => c.req.header(h),
    rawBody,
    nowMs: Date.now(),
    toleranceSeconds: cfg.WEBHOOK_TOLERANCE_SECONDS,
  });
  if (!verdict.ok) return problemResponse(401, "Unauthorized", `hook '${name}': ${verdict.reason}`);
  if (!IdempotencyKey.safeParse(verdict.deliveryId).success)
    return problemResponse(400, "Invalid delivery id", "the delivery id must be 1-255 visible ASCII characters");

  // GitHub's ping (sent when the hook is created) and events the hook does not take start nothing.
  if (verdict.event === "ping" || (verdict.event && hook.events && !hook.events.includes(verdict.event)))
    return c.json({ ignored: verdict.event }, 200);

  const payload = parsePayload(rawBody, c.req.header("content-type"));
  if (payload === undefined) return problemResponse(400, "Malformed JSON", "the hook's payload is not JSON");
  const text = messageText(hook, payload, { event: verdict.event ?? "", hook: name, delivery: verdict.deliveryId });
  if (!text) return problemResponse(422, "Empty message", `hook '${name}': the template rendered no text`);

  const msg: MessageRequest = {
    text,
    ...(hook.agent ? { agent_id: hook.agent } : {}),
    ...(hook.agent_ids ? { agent_ids: hook.agent_ids } : {}),
    ...(hook.pool ? { pool: hook.pool } : {}),
    ...(hook.mode ? { mode: hook.mode } : {}),
  };
  // Bound to the hook's own target: its device, every device of its fleet, or its pool.
  const grant = {
    agents: hook.agent_ids ?? (hook.agent ? [hook.agent] : []),
    pools: hook.pool ? [hook.pool] : [],
    scopes: ["messages"] as const,
  };
  const reply = hookReplyThread(hook);
  const out = await acceptMessage(c.env, cfg, {
    principal: scopedPrincipal(`hook:${name}`, grant, cfg.POOLS),
    idempotencyKey: verdict.deliveryId,
    rawBody,
    msg,
    waitSeconds: null,
    ...(reply ? { replyTarget: reply.replyTarget } : {}),
  });
  if (reply && out.kind !== "refused" && !out.replayed)
    await announceHookRun(c.env, reply.thread, name, verdict.deliveryId, text);
  return messageResponse(out);
});
