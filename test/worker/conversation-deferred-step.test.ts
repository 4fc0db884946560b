/**
 * A tool result's step starts its model call before the step is written (so the request is not
 * held by the output gate), and is written before the hub gets its answer, before any read, and
 * before any other event: these tests hold the shell to that.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ConversationDO } from "../../durable-objects/conversation/conversation-do.js";
import { advance, initialState, type LoopState } from "../../durable-objects/conversation/core/index.js";
import { ConversationStore } from "../../durable-objects/conversation/storage/conversation-store.js";
import { calls, ok, TOOLS } from "../unit/loop/fixtures.js";

/** A conversation object waiting for the result of one bash call. */
function awaitingResult(conversationId: string): { state: LoopState; callId: string; requestId: string } {
  const now = Date.now();
  let s = advance(
    initialState(conversationId, "pi-1"),
    { type: "user_message", message_id: "m1", text: "list files", tools: TOOLS },
    now,
  ).state;
  s = advance(
    s,
    { type: "llm_response", call_id: s.run!.awaiting_llm!, turn: calls(["bash", { command: "ls" }, "call_ls"]) },
    now,
  ).state;
  const call = s.run!.round![0]!;
  return { state: s, callId: call.id, requestId: call.request_id };
}

/** Runs `fn` inside a fresh conversation object that is waiting for one result. */
async function withWaitingConversation(
  fn: (o: ConversationDO, sql: SqlStorage, call: { callId: string; requestId: string }) => Promise<void>,
): Promise<void> {
  const id = `deferred-${crypto.randomUUID()}`;
  await runInDurableObject(env.CONVERSATION.get(env.CONVERSATION.idFromName(id)), async (o: ConversationDO, state) => {
    const { state: s, callId, requestId } = awaitingResult(id);
    (o as unknown as { state: LoopState }).state = s;
    await fn(o, state.storage.sql, { callId, requestId });
  });
}

const stored = (sql: SqlStorage) => new ConversationStore(sql).loadState()!;
const toolMessages = (s: LoopState) => s.messages.filter((m) => m.role === "tool").map((m) => m.content);
/** Rows of the step log; a new conversation has no table before its first write (conversation-schema.ts). */
const stepRows = (sql: SqlStorage) =>
  sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'steps'").toArray().length === 0
    ? 0
    : sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM steps").one().n;
const eventTypes = (sql: SqlStorage) => new ConversationStore(sql).events().map((e) => e.type);

describe("ConversationDO: the step a tool result completes", () => {
  it("is written before the hub's call returns", async () => {
    await withWaitingConversation(async (o, sql, { callId, requestId }) => {
      await o.deliverToolResult(callId, requestId, ok("bash", "a.txt\n"));
      expect(toolMessages(stored(sql)).join()).toContain("a.txt");
      expect(eventTypes(sql).filter((t) => t === "tool_execution_end")).toHaveLength(1);
    });
  });

  it("is written before a read made while it waits, once", async () => {
    await withWaitingConversation(async (o, sql, { callId, requestId }) => {
      const delivered = o.deliverToolResult(callId, requestId, ok("bash", "b.txt\n"));
      // Nothing written yet: the write waits for the model request to leave.
      expect(stepRows(sql)).toBe(0);
      const view = await o.getConversation();
      expect(view!.messages.some((m) => m.role === "tool" && String(m.content).includes("b.txt"))).toBe(true);
      expect(toolMessages(stored(sql)).join()).toContain("b.txt");
      await delivered;
      expect(eventTypes(sql).filter((t) => t === "tool_execution_end")).toHaveLength(1);
    });
  });

  it("is written before another event is applied, so steps stay in order", async () => {
    await withWaitingConversation(async (o, sql, { callId, requestId }) => {
      const delivered = o.deliverToolResult(callId, requestId, ok("bash", "c.txt\n"));
      expect(await o.cancel("enough")).toEqual({ found: true, cancelled: true });
      await delivered;
      const s = stored(sql);
      expect(toolMessages(s).join()).toContain("c.txt");
      expect(s.run).toBeNull();
      expect(s.replies.at(-1)).toMatchObject({ message_id: "m1", status: "cancelled" });
      const types = eventTypes(sql);
      expect(types.indexOf("tool_execution_end")).toBeGreaterThanOrEqual(0);
      expect(types.indexOf("tool_execution_end")).toBeLessThan(types.lastIndexOf("conversation_end"));
    });
  });
});
