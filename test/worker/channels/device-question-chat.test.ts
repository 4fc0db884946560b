/**
 * A device MCP server's question answered in a chat thread (docs/protocol.md#elicitation): the
 * real chat thread's handlers, the real conversation and hub, a device whose frames the test plays.
 * The card's button (a choice) or a reply (a form of several fields) answered while the asking
 * device is offline leaves the card open and says so; answered once the device is back, the
 * answer reaches it in an `elicitation_answer` frame.
 */
import { env, runInDurableObject } from "cloudflare:test";
import type { ConversationEvent } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { chatThreadFor, conversationFor } from "../../../durable-objects/addresses.js";
import type { InboundEvent, PlatformClient } from "../../../durable-objects/channels/platform.js";
import { PLATFORMS } from "../../../durable-objects/channels/platforms/index.js";
import { handleButton } from "../../../durable-objects/channels/thread/handle-button.js";
import { handleMessage } from "../../../durable-objects/channels/thread/handle-message.js";
import { applyRunOutput } from "../../../durable-objects/channels/thread/run-output.js";
import type { ChatThreadEnv, ThreadContext } from "../../../durable-objects/channels/thread/thread-context.js";
import { ThreadStore } from "../../../durable-objects/channels/thread/thread-store.js";
import { threadIdentity } from "../../../durable-objects/channels/thread-key.js";
import { REGION_FORM } from "../../fixtures/mcp/asking-forms.mjs";
import { ADMIN, call, connectDevice, type Device, deviceView, uid, waitFor } from "../support/front-door.js";
import { jsonPost } from "../support/keys.js";

const TOKEN = "s";
/** A device of this file's own (files share one runtime): its token in the vars its requests carry. */
const connect = (agent: string) => connectDevice(agent, TOKEN, { DEVICE_TOKENS: `${agent}:${TOKEN}` });

const TABLE = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1 },
    guests: { type: "integer", minimum: 1, maximum: 12, default: 2 },
  },
  required: ["name"],
};

/** What the platform was asked to do: the toasts a button press got. */
function recordingClient() {
  const toasts: string[] = [];
  const client: PlatformClient = {
    send: async () => ({ ok: true, messageId: "1" }) as never,
    edit: async () => ({ ok: true, messageId: "1" }) as never,
    typing: async () => {},
    answerButton: async (_event, text) => void toasts.push(text),
    fetchImage: async () => ({ bytes: new Uint8Array(), mediaType: "image/png" }),
  };
  return { client, toasts };
}

/** A running call on the device whose server asks `schema`; the device's socket and the call's ids. */
async function askedCall(schema: object) {
  const agent = uid("pi-chatq");
  const dev = await connect(agent);
  dev.hello();
  await dev.online();
  const conversationId = uid("conv-chatq");
  const toolCallId = uid("call_chatq").replace(/-/g, "_");
  const messageId = uid("msg");
  const accepted = await conversationFor(env, conversationId).callTool({
    conversation_id: conversationId,
    by: { id: "api", scoped: false, reach: "*" },
    agent_id: agent,
    message_id: messageId,
    tool_call_id: toolCallId,
    tool: "bash",
    arguments: { command: "ask" },
  });
  expect(accepted).toMatchObject({ ok: true });
  // This call's command (the request ids carry the message's id), not one an earlier test left.
  const command = await dev.next((f) => f.type === "command" && String(f.request_id).startsWith(messageId));
  const requestId = command.request_id as string;
  dev.ws.send(
    JSON.stringify({
      type: "elicitation",
      request_id: requestId,
      elicitation_id: "e-1",
      server: "ask",
      message: "Which one?",
      requested_schema: schema,
    }),
  );
  const events = await waitFor(
    () => conversationFor(env, conversationId).getEvents(),
    (es) => es.some((e) => e.type === "question"),
  );
  const question = events.find((e) => e.type === "question") as ConversationEvent;
  return { agent, dev, conversationId, toolCallId, requestId, question };
}

/** The device's socket ends, and the hub knows it. */
async function goOffline(agent: string, dev: Device): Promise<void> {
  dev.ws.close(1000, "gone");
  await waitFor(
    () => deviceView(agent),
    (v) => !v.online,
  );
}

/** Back, still holding the call: a fresh socket. */
async function comeBack(agent: string, requestId: string): Promise<Device> {
  const back = await connect(agent);
  back.hello(undefined, [requestId]);
  await back.online();
  return back;
}

/** The call ends on the device: its question with it, and the next test's device starts clean. */
async function finish(back: Device, requestId: string): Promise<void> {
  back.ws.send(
    JSON.stringify({ type: "result", request_id: requestId, status: "success", tool: "bash", result: "ok" }),
  );
  await back.next((f) => f.type === "ack" && (f.request_ids as string[]).includes(requestId));
  back.ws.close(1000, "done");
}

/** A chat thread showing the question's card to a granted user, as its conversation's push makes it. */
async function threadWith(userId: string, asked: Awaited<ReturnType<typeof askedCall>>) {
  const grant = { platform: "telegram", subject: `user:${userId}`, agents: [asked.agent] };
  expect((await call("/v1/channels/grants", jsonPost(grant, ADMIN))).status).toBe(201);
  const identity = threadIdentity("telegram", { chatId: userId });
  const { client, toasts } = recordingClient();
  const inThread = <T>(fn: (ctx: ThreadContext, sql: SqlStorage) => Promise<T>) =>
    runInDurableObject(chatThreadFor(env, identity.key) as never, (_o, state: DurableObjectState) => {
      const store = new ThreadStore(state.storage.sql);
      const platform = PLATFORMS.telegram;
      const ctx = { env: env as unknown as ChatThreadEnv, store, identity, platform, client, limits: platform.limits };
      return fn(ctx, state.storage.sql);
    });
  const card = await inThread(async (ctx) => {
    ctx.store.put("conversation_id", asked.conversationId);
    // Numbered afresh: the thread takes events by sequence, and the run starts just before the question.
    const start = { type: "message_start", message_id: uid("msg"), text: "ask me", seq: 1, at: 1 };
    const outputs = [start, { ...asked.question, seq: 2 }].map((event) => ({
      type: "event" as const,
      conversation_id: asked.conversationId,
      event,
    }));
    applyRunOutput(ctx, asked.conversationId, outputs as never, Date.now());
    return ctx.store.openQuestion()!;
  });
  expect(card).toMatchObject({ tool_call_id: asked.toolCallId });
  /** The notices the thread queued since the last look. */
  const notices = () =>
    inThread(async (_ctx, sql) => {
      const sends = sql.exec<{ op: string }>("SELECT op FROM sends ORDER BY id").toArray();
      sql.exec("DELETE FROM sends");
      return sends.map((s) => JSON.parse(s.op) as { type: string; text?: string }).filter((o) => o.type === "notice");
    });
  const user = { id: userId, name: `user ${userId}` };
  let n = 0;
  const press = (option: number) =>
    inThread(async (ctx) => {
      const event: InboundEvent = {
        kind: "button",
        eventId: `b${++n}`,
        chat: identity.chat,
        user,
        data: `${card.card_id}:${option}`,
        messageId: "1",
      };
      await handleButton(ctx, event);
      return ctx.store.card(card.card_id)!;
    });
  const reply = (text: string) =>
    inThread(async (ctx) => {
      const event: InboundEvent = {
        kind: "message",
        eventId: `m${++n}`,
        chat: identity.chat,
        user,
        chatType: "direct",
        text,
        images: [],
      };
      await handleMessage(ctx, event);
      return ctx.store.card(card.card_id)!;
    });
  return { card, toasts, notices, press, reply };
}

describe("a device MCP server's question answered in a chat thread", () => {
  it("a button pressed while the device is offline: the card stays open and the press is told so; pressed once it is back, the choice reaches the device", async () => {
    const asked = await askedCall(REGION_FORM);
    const thread = await threadWith("8101", asked);
    expect(thread.card.options).toEqual(["Europe", "America", "✗ Decline"]);
    await goOffline(asked.agent, asked.dev);

    const offline = await thread.press(1);
    expect(offline.decided).toBeNull();
    expect(thread.toasts.at(-1)).toBe("The device is offline; try again when it is back.");
    expect((await conversationFor(env, asked.conversationId).getConversation())?.pending_tool_calls).toEqual([
      expect.objectContaining({ id: asked.toolCallId, state: "awaiting_answer" }),
    ]);

    const back = await comeBack(asked.agent, asked.requestId);
    const answered = await thread.press(1);
    expect(thread.toasts.at(-1)).toBe("Answered.");
    expect(answered.decided).toMatch(/^💬 “America” by user 8101 at /);
    expect(await back.next((f) => f.type === "elicitation_answer")).toEqual({
      type: "elicitation_answer",
      request_id: asked.requestId,
      elicitation_id: "e-1",
      action: "accept",
      content: { region: "us-1" },
    });
    await finish(back, asked.requestId);
  });

  it("a reply while the device is offline: the card stays open and the thread says the device is offline; a reply once it is back reaches the device with the form's defaults", async () => {
    const asked = await askedCall(TABLE);
    const thread = await threadWith("8102", asked);
    expect(thread.card.options).toEqual(["✗ Decline"]);
    await goOffline(asked.agent, asked.dev);

    const offline = await thread.reply("name: Ada");
    expect(offline.decided).toBeNull();
    expect((await thread.notices()).map((n) => n.text)).toEqual([
      `Not answered: device '${asked.agent}' is offline; answer again when it is back`,
    ]);

    const back = await comeBack(asked.agent, asked.requestId);
    const answered = await thread.reply("name: Ada");
    expect(answered.decided).toBe("💬 Answered by user 8102");
    expect(await thread.notices()).toEqual([]);
    expect(await back.next((f) => f.type === "elicitation_answer")).toEqual({
      type: "elicitation_answer",
      request_id: asked.requestId,
      elicitation_id: "e-1",
      action: "accept",
      content: { name: "Ada", guests: 2 },
    });
    await finish(back, asked.requestId);
  });

  it("a button pressed after the call ended on the device: the card says it no longer waits, and the device is sent nothing", async () => {
    const asked = await askedCall(REGION_FORM);
    const thread = await threadWith("8103", asked);
    await finish(asked.dev, asked.requestId);
    const back = await connect(asked.agent);
    back.hello();
    await back.online();

    const late = await thread.press(0);
    expect(thread.toasts.at(-1)).toBe("That question is no longer waiting.");
    expect(late.decided).toBe("No longer waiting for an answer.");
    expect(back.received.filter((f) => f.type === "elicitation_answer")).toEqual([]);
    back.ws.close(1000, "done");
  });
});
