/**
 * A person's side of an MCP server's question, over the API as the dashboard uses it: wait for
 * the call that awaits an answer, answer it, and start a run whose reply is awaited meanwhile.
 * `url` is read at each use, so a file that restarts its worker keeps using the new one.
 */
import { sendMessage, type WaitReplyBody } from "./api.js";
import { API_TOKEN } from "./local-worker.js";
import { waitUntil } from "./wait.js";

export type PendingCall = { id: string; name: string; state: string; question?: string; options?: string[] };

export function pendingQuestions(url: () => string, agentId: string, idPrefix: string) {
  async function pendingQuestion(conversationId: string): Promise<PendingCall> {
    const view = await waitUntil(
      () =>
        fetch(`${url()}/v1/conversations/${conversationId}`, {
          headers: { authorization: `Bearer ${API_TOKEN}` },
        }).then((r) => r.json() as Promise<{ pending_tool_calls?: PendingCall[] }>),
      (v) => (v.pending_tool_calls ?? []).some((c) => c.state === "awaiting_answer"),
      { what: `a question in ${conversationId}`, timeoutMs: 30_000 },
    );
    return view.pending_tool_calls!.find((c) => c.state === "awaiting_answer")!;
  }

  function answer(conversationId: string, callId: string, body: unknown, token = API_TOKEN): Promise<Response> {
    return fetch(`${url()}/v1/conversations/${conversationId}/answers/${callId}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  /** Sends `text` in a new conversation and waits for its reply meanwhile; the id is known at once. */
  function startRun(text: string): { conversationId: string; done: Promise<WaitReplyBody> } {
    const conversationId = `${idPrefix}-${crypto.randomUUID()}`;
    const done = sendMessage(url(), { agent_id: agentId, conversation_id: conversationId, text }, 60).then((r) =>
      // Not an assertion here: a failure would be an unhandled rejection until the test awaits it.
      r.status === 200 ? r.body : ({ status: `HTTP ${r.status}`, reply: JSON.stringify(r.body) } as WaitReplyBody),
    );
    return { conversationId, done };
  }

  return { pendingQuestion, answer, startRun };
}
