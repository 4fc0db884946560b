import { Hono } from "hono";
import { Identifier } from "../../protocol/index.js";
import type { Env } from "../env.js";
import { requireToken } from "../middleware/require-token.js";
import { problem } from "../problem.js";

export const conversations = new Hono<{ Bindings: Env }>();

conversations.use("*", requireToken("API_TOKEN", "ADMIN_TOKEN"));

function stubFor(env: Env, id: string) {
  return env.CONVERSATION.get(env.CONVERSATION.idFromName(id));
}

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
  const headers = new Headers({ accept: c.req.header("accept") ?? "text/event-stream", "x-edgeloop-conversation-id": id });
  const lastEventId = c.req.header("last-event-id");
  if (lastEventId) headers.set("last-event-id", lastEventId);
  const search = new URL(c.req.url).search;
  return stubFor(c.env, id).fetch(new Request(`https://conversation.internal/events${search}`, { headers, signal: c.req.raw.signal }));
});

conversations.post("/:id/cancel", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problem(c, 400, "Invalid conversation id");
  const result = await stubFor(c.env, id).cancel("cancelled through the API");
  if (!result.found) return problem(c, 404, "Not found", `no conversation '${id}'`);
  return c.json(result, 200);
});
