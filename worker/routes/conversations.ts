import { Identifier } from "@edgeloop/protocol";
import { ApprovalDecision, ruleExpiry } from "@edgeloop/protocol/approval-rules";
import { HistoryPageQuery } from "@edgeloop/protocol/history-page";
import { type Context, Hono } from "hono";
import { z } from "zod";
import { allMetricsShards, conversationFor } from "../../durable-objects/addresses.js";
import { decideApproval } from "../../durable-objects/approval-decision.js";
import { parseStoredCanvas, renderCanvas } from "../../durable-objects/conversation/builtins/index.js";
import { canSee, hasScope } from "../../runtime/access.js";
import { invalidQuery, problemResponse } from "../../runtime/problem.js";
import type { AppEnv } from "../env.js";
import { authorize } from "../middleware/authorize.js";
import { readJsonBody } from "../read-body.js";

/**
 * `/v1/conversations`: the API token, the admin token (or dashboard session), or a scoped key —
 * which lists only the conversations it started and gets 404 for any other, exactly as for one
 * that does not exist (reading needs its scope `conversations:read`, acting `conversations:write`).
 */
export const conversations = new Hono<AppEnv>();

conversations.use("*", (c, next) =>
  authorize(c.req.method === "GET" ? "conversations:read" : "conversations:write")(c, next),
);

const noConversation = (id: string) => problemResponse(404, "Not found", `no conversation '${id}'`);

/** For a scoped principal, a 404 unless it started the conversation; null to go on. */
async function hiddenFrom(c: Context<AppEnv>, id: string): Promise<Response | null> {
  const principal = c.var.principal;
  if (!principal.scoped) return null;
  const { exists, owner } = await conversationFor(c.env, id).ownership();
  return exists && canSee(principal, owner) ? null : noConversation(id);
}

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  agent_id: Identifier.optional(),
  status: z.enum(["running", "completed", "failed", "cancelled"]).optional(),
});

/** GET /v1/conversations: the newest conversations, merged from the index shards. */
conversations.get("/", async (c) => {
  const q = ListQuery.safeParse(c.req.query());
  if (!q.success) return invalidQuery(q.error);
  const principal = c.var.principal;
  const query = { ...q.data, ...(principal.scoped ? { owner: principal.id } : {}) };
  const shards = await Promise.all(allMetricsShards(c.env).map((shard) => shard.conversations(query)));
  const rows = shards
    .flat()
    .sort((a, b) => b.updated_at - a.updated_at)
    .slice(0, q.data.limit);
  return c.json({ conversations: rows });
});

/** GET /v1/conversations/:id: one page of the history (protocol/history-page.ts), and the rest. */
conversations.get("/:id", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problemResponse(400, "Invalid conversation id");
  const page = HistoryPageQuery.safeParse(c.req.query());
  if (!page.success) return invalidQuery(page.error);
  const hidden = await hiddenFrom(c, id);
  if (hidden) return hidden;
  const view = await conversationFor(c.env, id).getConversation(page.data);
  if (!view) return noConversation(id);
  return c.json(view);
});

/**
 * GET /v1/conversations/:id/events — the SSE stream, served by the conversation DO's fetch()
 * at `/events`. Forwarded with Last-Event-ID (resume) and the query; the body streams through.
 */
conversations.get("/:id/events", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problemResponse(400, "Invalid conversation id");
  const hidden = await hiddenFrom(c, id);
  if (hidden) return hidden;
  const headers = new Headers({
    accept: c.req.header("accept") ?? "text/event-stream",
    "x-edgeloop-conversation-id": id,
  });
  const lastEventId = c.req.header("last-event-id");
  if (lastEventId) headers.set("last-event-id", lastEventId);
  const search = new URL(c.req.url).search;
  return conversationFor(c.env, id).fetch(
    new Request(`https://conversation.internal/events${search}`, { headers, signal: c.req.raw.signal }),
  );
});

conversations.post("/:id/cancel", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problemResponse(400, "Invalid conversation id");
  const hidden = await hiddenFrom(c, id);
  if (hidden) return hidden;
  const result = await conversationFor(c.env, id).cancel("cancelled through the API");
  if (!result.found) return noConversation(id);
  return c.json(result, 200);
});

/** An answer's text, or (for a remote MCP server's question) a decision to give none. */
const AnswerBody = z.union([
  z.object({ answer: z.string().min(1).max(32_000) }).strict(),
  z.object({ action: z.enum(["decline", "cancel"]) }).strict(),
]);

/**
 * POST /v1/conversations/:id/approvals/:tool_call_id `{approve, reason?, scope?, pattern?, expires_*?}`.
 * A scope of `always` or `deny_always` is stored as an approval rule for the call's tool on its
 * device (only calls whose arguments match `pattern`, when given) before the decision is applied,
 * and revoked again if the call was not waiting after all.
 */
conversations.post("/:id/approvals/:call", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problemResponse(400, "Invalid conversation id");
  const hidden = await hiddenFrom(c, id);
  if (hidden) return hidden;
  const body = await readJsonBody(c, ApprovalDecision);
  if (!body.ok) return body.response;
  const d = body.value;
  const principal = c.var.principal;
  if (d.scope !== "once" && !hasScope(principal, "approval_rules"))
    return problemResponse(403, "Forbidden", "a decision with a scope makes a rule: this key needs 'approval_rules'");
  const callId = c.req.param("call");
  const expiresAt = ruleExpiry(d, Date.now());
  if (d.scope !== "once" && expiresAt !== null && expiresAt <= Date.now())
    return problemResponse(400, "Invalid decision", "the expiry is in the past", {
      errors: [{ path: "expires_at", message: "must be in the future" }],
    });
  const decision = { approve: d.approve === true, scope: d.scope, reason: d.reason, pattern: d.pattern, expiresAt };
  // A scoped principal's rule answers for its own conversations only.
  const res = await decideApproval(c.env, id, callId, decision, principal.scoped ? principal.id : null);
  if (!res.ok) return problemResponse(res.status, res.status === 404 ? "Not found" : "Conflict", res.detail);
  const { approved: approve, rule } = res;
  return c.json({ conversation_id: id, tool_call_id: callId, approved: approve, scope: d.scope, rule });
});

/**
 * POST /v1/conversations/:id/answers/:tool_call_id `{answer}` or `{action: "decline"|"cancel"}` —
 * the user's answer to a `question`: the model's, or a remote or device MCP server's during a
 * call, which is checked against the server's form first (422 with why, and the question stays
 * open; 503 when the device that asked is offline, and it stays open too).
 */
conversations.post("/:id/answers/:call", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problemResponse(400, "Invalid conversation id");
  const hidden = await hiddenFrom(c, id);
  if (hidden) return hidden;
  const body = await readJsonBody(c, AnswerBody);
  if (!body.ok) return body.response;
  const answer = "answer" in body.value ? { text: body.value.answer } : { action: body.value.action };
  const res = await conversationFor(c.env, id).answer(c.req.param("call"), answer);
  if (res.error) return problemResponse(422, "Answer does not fit the question", res.error);
  // A device server's question whose device is offline: still open, for an answer once it is back.
  if (res.unavailable) return problemResponse(503, "Service Unavailable", res.unavailable);
  if (!res.found)
    return problemResponse(404, "Not found", `no pending call '${c.req.param("call")}' in conversation '${id}'`);
  if (!res.applied) return problemResponse(409, "Conflict", "that call is not waiting for an answer");
  return c.json({ conversation_id: id, tool_call_id: c.req.param("call"), answered: true });
});

/**
 * GET /v1/conversations/:id/canvas — the conversation's artifact. Model-written HTML is served
 * under a CSP that allows no scripts and no network, so it cannot act on the viewer's behalf.
 */
conversations.get("/:id/canvas", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problemResponse(400, "Invalid conversation id");
  const hidden = await hiddenFrom(c, id);
  if (hidden) return hidden;
  const stored = parseStoredCanvas(await conversationFor(c.env, id).getCanvas());
  if (!stored) return problemResponse(404, "Not found", `conversation '${id}' has no canvas`);
  const page = renderCanvas(stored);
  return c.body(page.body, 200, {
    "content-type": page.contentType,
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox",
    "x-content-type-options": "nosniff",
  });
});

/**
 * GET /v1/conversations/:id/images/:hash — an image the conversation stored (docs/images.md), with
 * the conversation's own authorization. The address is the content's hash, so it never changes.
 */
conversations.get("/:id/images/:hash", async (c) => {
  const id = c.req.param("id");
  const hash = c.req.param("hash");
  if (!Identifier.safeParse(id).success) return problemResponse(400, "Invalid conversation id");
  if (!/^[0-9a-f]{64}$/.test(hash)) return problemResponse(400, "Invalid image hash", "a SHA-256 in lowercase hex");
  const hidden = await hiddenFrom(c, id);
  if (hidden) return hidden;
  const image = await conversationFor(c.env, id).getImage(hash);
  if (!image) return problemResponse(404, "Not found", `conversation '${id}' has no image ${hash}`);
  return new Response(image.bytes, {
    headers: {
      "content-type": image.media_type,
      "cache-control": "private, max-age=31536000, immutable",
      etag: `"${hash}"`,
      "x-content-type-options": "nosniff",
      // A device may send any image type (an SVG, say): shown here, it must not run anything.
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    },
  });
});
