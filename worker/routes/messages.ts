import { Hono } from "hono";
import { MessageRequest, WaitQuery } from "../../protocol/index.js";
import { loopConfig, readConfig } from "../config.js";
import type { Env } from "../env.js";
import { requireToken } from "../middleware/require-token.js";
import { problem } from "../problem.js";
import { readJsonBody } from "../read-body.js";

export const messages = new Hono<{ Bindings: Env }>();

/** POST /v1/messages: hand the message to its conversation; 202 at once, or 200 after `?wait=N`. */
messages.post("/", requireToken("API_TOKEN", "ADMIN_TOKEN"), async (c) => {
  const waitRaw = c.req.query("wait");
  let waitSeconds = 0;
  if (waitRaw !== undefined) {
    const wait = WaitQuery.safeParse(waitRaw);
    if (!wait.success) return problem(c, 400, "Invalid query", "wait: an integer number of seconds from 0 to 60", { errors: [{ path: "wait", message: "0-60" }] });
    waitSeconds = wait.data;
  }
  const body = await readJsonBody(c, MessageRequest);
  if (!body.ok) return body.response;
  const cfg = readConfig(c.env);
  if (!cfg.ok) return problem(c, 500, "Server misconfigured", cfg.error);

  const conversation_id = body.value.conversation_id ?? `conv_${crypto.randomUUID()}`;
  const message_id = `msg_${crypto.randomUUID()}`;
  const stub = c.env.CONVERSATION.get(c.env.CONVERSATION.idFromName(conversation_id));
  const accepted = await stub.postMessage({
    conversation_id,
    agent_id: body.value.agent_id,
    message_id,
    text: body.value.text,
    loop: loopConfig(cfg.config),
  });
  if (!accepted.ok) return problem(c, 409, "Conflict", accepted.error);
  if (waitRaw === undefined) return c.json({ conversation_id, message_id }, 202);
  const reply = await stub.waitForReply(message_id, waitSeconds * 1000);
  return c.json(reply, 200);
});
