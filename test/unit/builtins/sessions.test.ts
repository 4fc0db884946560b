import { describe, expect, it } from "vitest";
import { sessionStatus } from "../../../durable-objects/conversation/builtins/session-status.js";
import { sessionsHistory } from "../../../durable-objects/conversation/builtins/sessions-history.js";
import { sessionsList } from "../../../durable-objects/conversation/builtins/sessions-list.js";
import { sessionsSend } from "../../../durable-objects/conversation/builtins/sessions-send.js";
import { sessionsSpawn } from "../../../durable-objects/conversation/builtins/sessions-spawn.js";
import { fakeWorld } from "./fake-context.js";
import { errorOf, successJson, successText } from "./run.js";

type Listed = { conversation_id: string; agent_id: string | null; status: string; messages: number; current: boolean };

describe("sessions_spawn", () => {
  it("starts a conversation on this agent by default and remembers it", async () => {
    const world = fakeWorld();
    const spawned = await successJson<{ conversation_id: string; message_id: string; agent_id: string }>(
      sessionsSpawn,
      { text: "count to 3" },
      world.ctx,
    );
    expect(world.posts).toEqual([{ conversation_id: null, agent_id: "pi-1", text: "count to 3" }]);
    expect(spawned.agent_id).toBe("pi-1");
    expect(spawned.message_id).toMatch(/^msg-/);
    expect(world.known).toEqual([spawned.conversation_id]);
  });

  it("can target another agent", async () => {
    const world = fakeWorld();
    await successJson(sessionsSpawn, { text: "hi", agent_id: "desk-2" }, world.ctx);
    expect(world.posts[0]?.agent_id).toBe("desk-2");
  });

  it("reports a failed post as an error and remembers nothing", async () => {
    const world = fakeWorld();
    world.postError = "unknown agent";
    const err = await errorOf(sessionsSpawn, { text: "hi", agent_id: "nobody" }, world.ctx);
    expect(err.error_type).toBe("execution_failed");
    expect(err.error).toContain("unknown agent");
    expect(world.known).toEqual([]);
  });
});

describe("sessions_list", () => {
  it("lists itself first, then the known conversations with their status", async () => {
    const world = fakeWorld();
    const { conversation_id } = await successJson<{ conversation_id: string }>(
      sessionsSpawn,
      { text: "job" },
      world.ctx,
    );
    world.known.push("conv-gone");
    const list = await successJson<Listed[]>(sessionsList, {}, world.ctx);
    expect(list).toEqual([
      { conversation_id: "conv-self", agent_id: "pi-1", status: "running", messages: 1, current: true },
      { conversation_id, agent_id: "pi-1", status: "running", messages: 1, current: false },
      { conversation_id: "conv-gone", agent_id: null, status: "unknown", messages: 0, current: false },
    ]);
  });
});

describe("sessions_history", () => {
  it("shows the last messages of a known conversation as text", async () => {
    const world = fakeWorld();
    world.known.push("conv-a");
    world.conversations.set("conv-a", {
      conversation_id: "conv-a",
      agent_id: "pi-1",
      status: "idle",
      messages: [
        { role: "user", content: "one" },
        { role: "assistant", content: null },
        { role: "tool", content: "two" },
        { role: "assistant", content: "three" },
      ],
    });
    const text = await successText(sessionsHistory, { conversation_id: "conv-a", limit: 3 }, world.ctx);
    expect(text).toContain("last 3 of 4 messages");
    expect(text).not.toContain("one");
    expect(text).toContain("[assistant] (no text)");
    expect(text.indexOf("[tool] two")).toBeLessThan(text.indexOf("[assistant] three"));
  });

  it("reads its own history", async () => {
    const { ctx } = fakeWorld();
    expect(await successText(sessionsHistory, { conversation_id: "conv-self" }, ctx)).toContain("[user] hello");
  });

  it("refuses a conversation it does not know", async () => {
    const world = fakeWorld();
    world.conversations.set("conv-secret", {
      conversation_id: "conv-secret",
      agent_id: "pi-9",
      status: "idle",
      messages: [{ role: "user", content: "top-secret-text" }],
    });
    const err = await errorOf(sessionsHistory, { conversation_id: "conv-secret" }, world.ctx);
    expect(err.error_type).toBe("permission_denied");
    expect(err.error).not.toContain("top-secret-text");
  });

  it("caps long messages", async () => {
    const world = fakeWorld();
    world.conversations.get("conv-self")!.messages.push({ role: "tool", content: "x".repeat(5000) });
    const text = await successText(sessionsHistory, { conversation_id: "conv-self" }, world.ctx);
    expect(text).toContain("[3000 more characters]");
  });

  it("rejects a limit out of range", async () => {
    const { ctx } = fakeWorld();
    expect((await errorOf(sessionsHistory, { conversation_id: "conv-self", limit: 0 }, ctx)).error).toContain("limit");
  });
});

describe("sessions_send", () => {
  it("posts into a known conversation on its own agent and returns the message id", async () => {
    const world = fakeWorld();
    const { conversation_id } = await successJson<{ conversation_id: string }>(
      sessionsSpawn,
      { text: "start", agent_id: "desk-2" },
      world.ctx,
    );
    const sent = await successJson<{ conversation_id: string; message_id: string }>(
      sessionsSend,
      { conversation_id, text: "and now?" },
      world.ctx,
    );
    expect(sent.conversation_id).toBe(conversation_id);
    expect(sent.message_id).toMatch(/^msg-/);
    expect(world.posts.at(-1)).toEqual({ conversation_id, agent_id: "desk-2", text: "and now?" });
  });

  it("refuses an unknown conversation with permission_denied and posts nothing", async () => {
    const world = fakeWorld();
    world.conversations.set("conv-other", {
      conversation_id: "conv-other",
      agent_id: "pi-1",
      status: "idle",
      messages: [],
    });
    const err = await errorOf(sessionsSend, { conversation_id: "conv-other", text: "hi" }, world.ctx);
    expect(err.error_type).toBe("permission_denied");
    expect(world.posts).toEqual([]);
  });

  it("refuses sending to itself", async () => {
    const world = fakeWorld();
    const err = await errorOf(sessionsSend, { conversation_id: "conv-self", text: "hi" }, world.ctx);
    expect(err.error_type).toBe("invalid_params");
    expect(world.posts).toEqual([]);
  });

  it("rejects an id that is not a plain identifier", async () => {
    const { ctx } = fakeWorld();
    expect((await errorOf(sessionsSend, { conversation_id: "../x", text: "hi" }, ctx)).error_type).toBe(
      "invalid_params",
    );
  });
});

describe("session_status", () => {
  it("gives the status of a known conversation", async () => {
    const world = fakeWorld();
    world.known.push("conv-b");
    world.conversations.set("conv-b", {
      conversation_id: "conv-b",
      agent_id: "pi-2",
      status: "waiting_approval",
      messages: [{ role: "assistant", content: "?" }],
    });
    expect(await successJson(sessionStatus, { conversation_id: "conv-b" }, world.ctx)).toEqual({
      conversation_id: "conv-b",
      agent_id: "pi-2",
      status: "waiting_approval",
      messages: 1,
      last_message_role: "assistant",
    });
  });

  it("says not_found for a known id that no longer exists, permission_denied for an unknown one", async () => {
    const world = fakeWorld();
    world.known.push("conv-gone");
    expect((await errorOf(sessionStatus, { conversation_id: "conv-gone" }, world.ctx)).error_type).toBe("not_found");
    expect((await errorOf(sessionStatus, { conversation_id: "conv-nope" }, world.ctx)).error_type).toBe(
      "permission_denied",
    );
  });
});
