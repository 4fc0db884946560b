import { Hono } from "hono";
import { z } from "zod";
import { parseStoredCanvas, renderCanvas } from "../../durable-objects/conversation/builtins/index.js";
import { metricsShards } from "../../durable-objects/metrics/aggregate.js";
import type { ConversationIndexRow } from "../../durable-objects/metrics/metrics-shard-do.js";
import { Identifier } from "../../protocol/index.js";
import type { Env } from "../env.js";
import { requireToken } from "../middleware/require-token.js";
import { problem } from "../problem.js";
import { readJsonBody } from "../read-body.js";

export const conversations = new Hono<{ Bindings: Env }>();

conversations.use("*", requireToken("API_TOKEN", "ADMIN_TOKEN"));

function stubFor(env: Env, id: string) {
  return env.CONVERSATION.get(env.CONVERSATION.idFromName(id));
}

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  agent_id: Identifier.optional(),
  status: z.enum(["running", "completed", "failed", "cancelled"]).optional(),
});

/** GET /v1/conversations: the newest conversations, merged from the index shards. */
conversations.get("/", async (c) => {
  const q = ListQuery.safeParse(c.req.query());
  if (!q.success)
    return problem(c, 400, "Invalid query", q.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
  const ns = c.env.METRICS_SHARD;
  if (!ns) return c.json({ conversations: [] });
  const shards = await Promise.all(
    Array.from({ length: metricsShards(c.env) }, (_, i) =>
      ns.get(ns.idFromName(`shard-${i}`)).conversations(q.data.limit, q.data.agent_id, q.data.status),
    ),
  );
  const rows = (shards.flat() as ConversationIndexRow[])
    .sort((a, b) => b.updated_at - a.updated_at)
    .slice(0, q.data.limit);
  return c.json({ conversations: rows });
});

conversations.get("/:id", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problem(c, 400, "Invalid conversation id");
  const view = await stubFor(c.env, id).getConversation();
  if (!view) return problem(c, 404, "Not found", `no conversation '${id}'`);
  return c.json(view);
});

/**
 * GET /v1/conversations/:id/events — the SSE stream, served by the conversation DO's fetch()
 * at `/events`. Forwarded with Last-Event-ID (resume) and the query; the body streams through.
 */
conversations.get("/:id/events", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problem(c, 400, "Invalid conversation id");
  const headers = new Headers({
    accept: c.req.header("accept") ?? "text/event-stream",
    "x-edgeloop-conversation-id": id,
  });
  const lastEventId = c.req.header("last-event-id");
  if (lastEventId) headers.set("last-event-id", lastEventId);
  const search = new URL(c.req.url).search;
  return stubFor(c.env, id).fetch(
    new Request(`https://conversation.internal/events${search}`, { headers, signal: c.req.raw.signal }),
  );
});

conversations.post("/:id/cancel", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problem(c, 400, "Invalid conversation id");
  const result = await stubFor(c.env, id).cancel("cancelled through the API");
  if (!result.found) return problem(c, 404, "Not found", `no conversation '${id}'`);
  return c.json(result, 200);
});

const ApprovalBody = z.object({ approve: z.boolean(), reason: z.string().max(2000).optional() }).strict();
const AnswerBody = z.object({ answer: z.string().min(1).max(32_000) }).strict();

/** POST /v1/conversations/:id/approvals/:tool_call_id `{approve, reason?}` */
conversations.post("/:id/approvals/:call", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problem(c, 400, "Invalid conversation id");
  const body = await readJsonBody(c, ApprovalBody);
  if (!body.ok) return body.response;
  const res = await stubFor(c.env, id).approve(c.req.param("call"), body.value.approve, body.value.reason);
  if (!res.found)
    return problem(c, 404, "Not found", `no pending call '${c.req.param("call")}' in conversation '${id}'`);
  if (!res.applied) return problem(c, 409, "Conflict", "that call is not waiting for approval");
  return c.json({ conversation_id: id, tool_call_id: c.req.param("call"), approved: body.value.approve });
});

/** POST /v1/conversations/:id/answers/:tool_call_id `{answer}` — the user's answer to a `question`. */
conversations.post("/:id/answers/:call", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problem(c, 400, "Invalid conversation id");
  const body = await readJsonBody(c, AnswerBody);
  if (!body.ok) return body.response;
  const res = await stubFor(c.env, id).answer(c.req.param("call"), body.value.answer);
  if (!res.found)
    return problem(c, 404, "Not found", `no pending call '${c.req.param("call")}' in conversation '${id}'`);
  if (!res.applied) return problem(c, 409, "Conflict", "that call is not waiting for an answer");
  return c.json({ conversation_id: id, tool_call_id: c.req.param("call"), answered: true });
});

/**
 * GET /v1/conversations/:id/canvas — the conversation's artifact. Model-written HTML is served
 * under a CSP that allows no scripts and no network, so it cannot act on the viewer's behalf.
 */
conversations.get("/:id/canvas", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problem(c, 400, "Invalid conversation id");
  const stored = parseStoredCanvas(await stubFor(c.env, id).getCanvas());
  if (!stored) return problem(c, 404, "Not found", `conversation '${id}' has no canvas`);
  const page = renderCanvas(stored);
  return c.body(page.body, 200, {
    "content-type": page.contentType,
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox",
    "x-content-type-options": "nosniff",
  });
});
