/**
 * `npm start`'s sample conversation: one message through the real webhook, followed until its
 * reply, printed as it goes. A call that waits for a person (TOOL_POLICIES `requires_approval`)
 * is said so at once, with the command that approves it, instead of a silent wait.
 */

type View = {
  status: string;
  messages: {
    role: string;
    content: string | null;
    tool_calls?: { function: { name: string; arguments: string } }[];
  }[];
  replies: { message_id: string; status: string; reply: string | null; iterations: number }[];
  pending_tool_calls: { id: string; name: string; state: string }[];
};

export type SampleTarget = { url: string; apiToken: string; adminToken: string; agentId: string };

const say = (line = "") => process.stdout.write(`${line}\n`);

export async function runSample(t: SampleTarget, text: string, timeoutMs = 120_000): Promise<string> {
  say();
  say(`> user: ${text}`);
  const api = { authorization: `Bearer ${t.apiToken}` };
  const res = await fetch(`${t.url}/v1/messages`, {
    method: "POST",
    headers: { ...api, "content-type": "application/json" },
    body: JSON.stringify({ agent_id: t.agentId, text }),
  });
  if (res.status !== 202) throw new Error(`the sample message was refused: ${res.status} ${await res.text()}`);
  const { conversation_id, message_id } = (await res.json()) as { conversation_id: string; message_id: string };
  const told = new Set<string>();
  const deadline = Date.now() + timeoutMs;
  let view: View | null = null;
  for (;;) {
    view = (await (await fetch(`${t.url}/v1/conversations/${conversation_id}`, { headers: api })).json()) as View;
    if (view.replies?.some((r) => r.message_id === message_id)) break;
    for (const call of view.pending_tool_calls ?? []) {
      if (call.state !== "awaiting_approval" || told.has(call.id)) continue;
      told.add(call.id);
      say(`  waiting    ${call.name} needs a person's approval (TOOL_POLICIES). Approve it from another terminal:`);
      say(`             npx edgeloop approve ${conversation_id} ${call.id} --url ${t.url} --token ${t.apiToken}`);
      say(`             (or deny, or use the dashboard's buttons)`);
    }
    if (Date.now() > deadline) {
      say(`< (no reply within ${timeoutMs / 1000} s; the conversation goes on: ${conversation_id})`);
      return conversation_id;
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  for (const m of view.messages.slice(1)) {
    if (m.role === "assistant" && m.tool_calls?.length) {
      for (const c of m.tool_calls) say(`  tool call  ${c.function.name} ${c.function.arguments}`);
    } else if (m.role === "tool") {
      say(`  result     ${(m.content ?? "").trim().replace(/\n/g, "\n             ")}`);
    }
  }
  const reply = view.replies.find((r) => r.message_id === message_id)!;
  say(`< assistant (${reply.status}, ${reply.iterations} LLM calls): ${reply.reply ?? "(no reply)"}`);
  say();
  return conversation_id;
}
