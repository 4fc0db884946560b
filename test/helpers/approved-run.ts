/**
 * A message whose tool call waits for a person, approved over the API as the dashboard does it:
 * the device must see nothing of the call until then (`sent` counts what it saw), and the run
 * then completes. Returns the conversation and the model's last answer.
 */
import { expect } from "vitest";
import { getConversation, sendMessage } from "./api.js";
import { API_TOKEN } from "./local-worker.js";
import { waitUntil } from "./wait.js";

export async function approvedRun(
  url: string,
  run: { agentId: string; text: string; sent: () => number },
): Promise<{ id: string; reply: string }> {
  const { text } = run;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
    });
  const before = run.sent();
  const id = (await sendMessage(url, { agent_id: run.agentId, text })).body.conversation_id;
  const call = await waitUntil(
    () =>
      api(`/v1/conversations/${id}`).then(
        (r) => r.json() as Promise<{ pending_tool_calls: { id: string; state: string }[] }>,
      ),
    (v) => v.pending_tool_calls.some((c) => c.state === "awaiting_approval"),
    { what: `a call awaiting approval in "${text}"` },
  ).then((v) => v.pending_tool_calls.find((c) => c.state === "awaiting_approval")!);
  expect(run.sent()).toBe(before);
  const res = await api(`/v1/conversations/${id}/approvals/${call.id}`, {
    method: "POST",
    body: JSON.stringify({ approve: true }),
  });
  expect(res.status).toBe(200);
  const done = await waitUntil(
    () => getConversation(url, id),
    (c) => c.status === "completed",
    { what: `"${text}" completed` },
  );
  return { id, reply: done.messages.filter((m) => m.role === "assistant").at(-1)!.content ?? "" };
}
