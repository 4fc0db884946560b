import { MessageRequest, WaitQuery } from "@edgeloop/protocol";
import { Hono } from "hono";
import { acceptMessage } from "../../durable-objects/front-door/accept-message.js";

import { bodyBeyondImages } from "../../durable-objects/front-door/message-images.js";
import { problemResponse } from "../../runtime/problem.js";
import { authorizeSender, type SenderEnv } from "../middleware/authorize.js";
import { countRejections } from "../middleware/count-rejections.js";
import { parseJsonBody } from "../read-body.js";
import { messageResponse } from "./message-response.js";

export const messages = new Hono<SenderEnv>();

messages.use("*", countRejections("POST /v1/messages"));

/**
 * POST /v1/messages, the front door: size and authentication (bearer or a signed webhook,
 * `authorizeSender`) → body → the rest of the way a scheduled run goes too
 * (durable-objects/front-door/accept-message.ts: idempotency claim → sender limit → routing →
 * agent limits → the conversation).
 */
messages.post("/", authorizeSender, async (c) => {
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
  const { rawBody, principal, idempotencyKey } = c.var;
  const max = c.var.config.MAX_BODY_BYTES;
  if (bodyBeyondImages(rawBody, max) !== null)
    return problemResponse(413, "Payload too large", `body over ${max} bytes, not counting its images`);
  const body = parseJsonBody(MessageRequest, rawBody);
  if (!body.ok) return body.response;
  const out = await acceptMessage(c.env, c.var.config, {
    principal,
    idempotencyKey,
    rawBody,
    msg: body.value,
    waitSeconds: waitRaw !== undefined ? waitSeconds : null,
  });
  return messageResponse(out);
});
