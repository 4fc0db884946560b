import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { conversationFor } from "../../durable-objects/addresses.js";
import { REGION_FORM } from "../fixtures/mcp/asking-forms.mjs";
import { API, call, connectDevice, type Frame, uid, waitFor } from "./support/front-door.js";

/**
 * A device MCP server's question inside workerd: the hub takes the agent's `elicitation` frame for
 * a call it sent, the call's conversation asks it as a remote server's question
 * (docs/protocol.md#elicitation), and the answer given through the API goes back to the device in
 * an `elicitation_answer` frame. A device's own frames are played by the test.
 */
const AGENT = "pi-devq";
const TOKEN = "devq-secret";
/** A device of this file's own (files share one runtime): its token in the vars its requests carry. */
const connect = () => connectDevice(AGENT, TOKEN, { DEVICE_TOKENS: `${AGENT}:${TOKEN}` });

const question = (requestId: string, elicitationId: string, schema: object = REGION_FORM) =>
  JSON.stringify({
    type: "elicitation",
    request_id: requestId,
    elicitation_id: elicitationId,
    server: "ask",
    message: "Which region?",
    requested_schema: schema,
  });

const answer = (conversationId: string, callId: string, body: unknown) =>
  call(`/v1/conversations/${conversationId}/answers/${callId}`, {
    method: "POST",
    headers: { ...API, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

type Pending = { id: string; state: string; question?: string; options?: string[] };
const pending = async (conversationId: string): Promise<Pending[]> =>
  ((await conversationFor(env, conversationId).getConversation())?.pending_tool_calls ?? []) as Pending[];

describe("a device MCP server's question through the hub", () => {
  it("is refused before hello, and for a request the hub never sent to the device", async () => {
    const early = await connect();
    early.ws.send(question("req-early", "e-early"));
    expect(await early.next((f) => f.type === "rejected")).toMatchObject({
      reason: "'elicitation' before hello",
      request_id: "req-early",
    });
    early.ws.close(1000, "done");
    const dev = await connect();
    dev.hello();
    await dev.online();
    dev.ws.send(question("req-never-sent", "e-1"));
    expect(await dev.next((f) => f.type === "rejected")).toMatchObject({
      reason: "elicitation for unknown request_id 'req-never-sent'",
    });
    dev.ws.close(1000, "done");
  });

  it("is asked for its call once, and the person's answer reaches the device; a form no one can be asked is declined at once; an offline device keeps it open", async () => {
    const dev = await connect();
    dev.hello();
    await dev.online();
    const conversationId = uid("conv-devq");
    const accepted = await conversationFor(env, conversationId).callTool({
      conversation_id: conversationId,
      by: { id: "api", scoped: false, reach: "*" },
      agent_id: AGENT,
      message_id: uid("msg"),
      tool_call_id: "call_devq_1",
      tool: "bash",
      arguments: { command: "ask" },
    });
    expect(accepted).toMatchObject({ ok: true });
    const cmd = await dev.next((f) => f.type === "command");
    const requestId = cmd.request_id as string;

    dev.ws.send(question(requestId, "e-1"));
    const [asked] = await waitFor(
      () => pending(conversationId),
      (calls) => calls.some((c) => c.state === "awaiting_answer"),
    );
    expect(asked).toMatchObject({ id: "call_devq_1", question: "[ask] Which region?" });
    expect(asked!.options).toEqual(["Europe", "America", "✗ Decline"]);
    // Sent again (as after a reconnect): the same question, not asked twice.
    dev.ws.send(question(requestId, "e-1"));
    // An answer that is not a choice: refused, still open.
    expect((await answer(conversationId, "call_devq_1", { answer: "Asia" })).status).toBe(422);
    expect((await answer(conversationId, "call_devq_1", { answer: "Europe" })).status).toBe(200);
    const answered = await dev.next((f) => f.type === "elicitation_answer");
    expect(answered).toEqual({
      type: "elicitation_answer",
      request_id: requestId,
      elicitation_id: "e-1",
      action: "accept",
      content: { region: "eu-1" },
    });
    const events = await conversationFor(env, conversationId).getEvents();
    expect(events.filter((e) => e.type === "question")).toHaveLength(1);

    // A nested object is outside the spec's form subset: declined without asking anyone.
    dev.ws.send(question(requestId, "e-2", { type: "object", properties: { deep: { type: "object" } } }));
    const declined = await dev.next((f: Frame) => f.type === "elicitation_answer" && f.elicitation_id === "e-2");
    expect(declined).toEqual({
      type: "elicitation_answer",
      request_id: requestId,
      elicitation_id: "e-2",
      action: "decline",
    });

    // The device goes offline while a question waits: the answer is refused (503), the question stays.
    dev.ws.send(question(requestId, "e-3"));
    await waitFor(
      () => pending(conversationId),
      (calls) => calls.some((c) => c.state === "awaiting_answer"),
    );
    dev.ws.close(1000, "gone");
    await waitFor(
      () => answer(conversationId, "call_devq_1", { action: "decline" }).then((r) => r.status),
      (status) => status === 503,
    );
    expect((await pending(conversationId))[0]).toMatchObject({ state: "awaiting_answer" });

    // Back, and the call ends: its question ends with it.
    const back = await connect();
    back.hello(undefined, [requestId]);
    await back.online();
    back.ws.send(
      JSON.stringify({ type: "result", request_id: requestId, status: "success", tool: "bash", result: "eu-1" }),
    );
    await back.next((f) => f.type === "ack");
    expect((await answer(conversationId, "call_devq_1", { action: "decline" })).status).toBe(404);
    back.ws.close(1000, "done");
  });
});
