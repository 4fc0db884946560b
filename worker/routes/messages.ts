import { type Context, Hono } from "hono";
import { conversationFor } from "../../durable-objects/addresses.js";
import type { StoredResponse } from "../../durable-objects/front-door/idempotency-do.js";
import { IDEMPOTENT_REPLAYED_HEADER, MessageRequest, WaitQuery } from "../../protocol/index.js";
import { problemResponse } from "../../runtime/problem.js";
import { readConfig } from "../config.js";
import type { Env } from "../env.js";
import { authenticateMessage } from "../front-door/authenticate.js";
import { claimIdempotencyKey } from "../front-door/idempotency.js";
import { admitAgent, admitSender } from "../front-door/rate-limits.js";
import { routeMessage } from "../front-door/route-target.js";
import { countRejections } from "../middleware/count-rejections.js";
import { parseJsonBody, readRawBody } from "../read-body.js";

export const messages = new Hono<{ Bindings: Env }>();

messages.use("*", countRejections("POST /v1/messages"));

const limited = (title: string, detail: string, retryAfter: number) =>
  problemResponse(429, title, detail, {}, { "retry-after": String(retryAfter) });

/**
 * POST /v1/messages, the front door: size → authentication (bearer or a signed webhook) → body →
 * idempotency claim → sender limit → routing → agent limits → the conversation. Everything before
 * the claim is free of side effects; after it, any refusal releases the key so a retry can run.
 */
messages.post("/", async (c) => {
  const cfg = readConfig(c.env);
  if (!cfg.ok) return problemResponse(500, "Server misconfigured", cfg.error);
  const config = cfg.config;

  const raw = await readRawBody(c, config.MAX_BODY_BYTES);
  if (!raw.ok) return raw.response;
  const auth = await authenticateMessage(c, raw.value, config);
  if (!auth.ok) return auth.response;
  const sender = auth.sender;

  const waitRaw = c.req.query("wait");
  let waitSeconds = 0;
  if (waitRaw !== undefined) {
    const wait = WaitQuery.safeParse(waitRaw);
    if (!wait.success)
      return problemResponse(400, "Invalid query", "wait: an integer number of seconds from 0 to 60", {
        errors: [{ path: "wait", message: "0-60" }],
      });
    waitSeconds = wait.data;
  }
  const body = parseJsonBody(MessageRequest, raw.value);
  if (!body.ok) return body.response;
  const msg = body.value;
  if (msg.text.length > config.MAX_TEXT_CHARS) {
    return problemResponse(
      413,
      "Text too long",
      `text has ${msg.text.length} characters; the limit is ${config.MAX_TEXT_CHARS}`,
      { errors: [{ path: "text", message: `at most ${config.MAX_TEXT_CHARS} characters` }] },
    );
  }

  const claim = await claimIdempotencyKey(c.env, sender.id, sender.idempotencyKey, raw.value);
  if (claim.kind === "replay") return replay(c, claim.response);
  if (claim.kind === "in_progress") {
    return problemResponse(
      409,
      "Request in progress",
      "a request with this idempotency key is still being processed; retry later",
      {},
      { "retry-after": String(claim.retry_after_s) },
    );
  }
  if (claim.kind === "mismatch")
    return problemResponse(422, "Idempotency key reused", "this idempotency key was used with a different body");

  let stored = false;
  try {
    const senderOk = await admitSender(c.env, config, sender.id);
    if (!senderOk.ok)
      return limited("Too many requests", `sender '${sender.id}': ${senderOk.detail}`, senderOk.retry_after_s);

    const conversation_id = msg.conversation_id ?? `conv_${crypto.randomUUID()}`;
    const target = await routeMessage(c.env, config, msg, conversation_id);
    if (!target.ok) {
      const extra = target.field ? { errors: [{ path: target.field, message: target.detail }] } : {};
      return problemResponse(
        target.status,
        target.title,
        target.detail,
        extra,
        target.status === 503 ? { "retry-after": "5" } : {},
      );
    }
    const agent_id = target.agent_id;
    const agentOk = await admitAgent(c.env, config, agent_id, conversation_id);
    if (!agentOk.ok) {
      const title = agentOk.reason === "rate" ? "Too many requests for this agent" : "Too many open conversations";
      return limited(title, `agent '${agent_id}': ${agentOk.detail}`, agentOk.retry_after_s);
    }

    const message_id = `msg_${crypto.randomUUID()}`;
    const stub = conversationFor(c.env, conversation_id);
    const accepted = await stub.postMessage({
      conversation_id,
      agent_id,
      message_id,
      text: msg.text,
      ...(msg.options ? { options: msg.options } : {}),
      ...(msg.reply_url ? { reply: { url: msg.reply_url, events: msg.reply_events ?? false } } : {}),
      // A pool may move a conversation to another device when its device goes away.
      rebind: msg.pool !== undefined,
    });
    if (!accepted.ok)
      return problemResponse(
        accepted.status,
        accepted.status === 500 ? "Server misconfigured" : "Conflict",
        accepted.error,
      );

    // The run has started: from here on a repeat must get a stored answer, never a second run.
    stored = true;
    let response: StoredResponse = {
      status: 202,
      body: JSON.stringify({ conversation_id, message_id, agent_id }),
      content_type: "application/json",
    };
    try {
      if (waitRaw !== undefined) {
        const reply = await stub.waitForReply(message_id, waitSeconds * 1000);
        response = { status: 200, body: JSON.stringify(reply), content_type: "application/json" };
      }
    } finally {
      // If the wait failed, a repeat gets the 202: the message was accepted all the same.
      await claim.finish(response);
    }
    return c.body(response.body, response.status as 200 | 202, { "content-type": response.content_type });
  } finally {
    // Refused or failed before a run started: forget the key so the sender's retry is processed.
    if (!stored) await claim.release().catch(() => {});
  }
});

function replay(c: Context, r: StoredResponse): Response {
  return c.body(r.body, r.status as 200 | 202, {
    "content-type": r.content_type,
    [IDEMPOTENT_REPLAYED_HEADER]: "true",
  });
}
