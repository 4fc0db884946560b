import { IDEMPOTENT_REPLAYED_HEADER, MessageRequest, WaitQuery } from "@edgeloop/protocol";
import { Hono } from "hono";
import { problemResponse } from "../../runtime/problem.js";
import { readConfig } from "../config.js";
import type { Env } from "../env.js";
import { acceptMessage } from "../front-door/accept-message.js";
import { authenticateMessage } from "../front-door/authenticate.js";
import { countRejections } from "../middleware/count-rejections.js";
import { parseJsonBody, readRawBody } from "../read-body.js";

export const messages = new Hono<{ Bindings: Env }>();

messages.use("*", countRejections("POST /v1/messages"));

/**
 * POST /v1/messages, the front door: size → authentication (bearer or a signed webhook) → body →
 * the rest of the way a scheduled run goes too (front-door/accept-message.ts: idempotency claim →
 * sender limit → routing → agent limits → the conversation).
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
  const out = await acceptMessage(c.env, config, {
    principal: sender.principal,
    idempotencyKey: sender.idempotencyKey,
    rawBody: raw.value,
    msg: body.value,
    waitSeconds: waitRaw !== undefined ? waitSeconds : null,
  });
  if (!out.ok) return problemResponse(out.status, out.title, out.detail, out.extra ?? {}, out.headers ?? {});
  return c.body(out.body, out.status, {
    "content-type": out.content_type,
    ...(out.replayed ? { [IDEMPOTENT_REPLAYED_HEADER]: "true" } : {}),
  });
});
