import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ConversationStore } from "../../durable-objects/conversation/conversation-store.js";
import { advance, initialState, type LoopState } from "../../durable-objects/conversation/core/index.js";
import { calls, ok, TOOLS, text } from "../unit/loop/fixtures.js";

const NOW = 1_700_000_000_000;

/** A fresh conversation object's own SQLite, with a store over it (the object makes the tables). */
async function withStore<T>(name: string, fn: (sql: SqlStorage) => T | Promise<T>): Promise<T> {
  const stub = env.CONVERSATION.get(env.CONVERSATION.idFromName(`${name}-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_o, state) => fn(state.storage.sql));
}

/** `rounds` tool rounds of one message, saved after every step as the object does. */
function runRounds(store: ConversationStore, state: LoopState, messageId: string, rounds: number): LoopState {
  let s = advance(
    state,
    { type: "user_message", message_id: messageId, text: `do ${messageId}`, tools: TOOLS },
    NOW,
  ).state;
  store.saveState(s);
  for (let i = 0; i < rounds; i++) {
    s = advance(
      s,
      {
        type: "llm_response",
        call_id: s.run!.awaiting_llm!,
        turn: calls(["bash", { command: `echo ${i}` }, `${messageId}-c${i}`]),
      },
      NOW,
    ).state;
    store.saveState(s);
    const call = s.run!.round![0]!;
    s = advance(
      s,
      { type: "tool_result", tool_call_id: call.id, request_id: call.request_id, outcome: ok("bash", `${i}`) },
      NOW,
    ).state;
    store.saveState(s);
  }
  return s;
}

const stateRowBytes = (sql: SqlStorage) =>
  sql.exec<{ n: number }>("SELECT length(v) AS n FROM kv WHERE k = 'state'").one().n;

describe("ConversationStore", () => {
  it("loads exactly what was saved: mid-run, with earlier replies", async () => {
    await withStore("store-roundtrip", (sql) => {
      const store = new ConversationStore(sql);
      let s = runRounds(store, initialState("c", "pi-1"), "m1", 2);
      s = advance(s, { type: "llm_response", call_id: s.run!.awaiting_llm!, turn: text("first done") }, NOW).state;
      store.saveState(s);
      s = runRounds(store, s, "m2", 3);
      expect(s.replies).toHaveLength(1);
      expect(s.run!.tool_calls).toHaveLength(3);
      expect(new ConversationStore(sql).loadState()).toEqual(s);
    });
  });

  it("writes a state row that does not grow with the run's tool calls", async () => {
    await withStore("store-size", (sql) => {
      const store = new ConversationStore(sql);
      let s = runRounds(store, initialState("c", "pi-1", { max_iterations: 100 }), "m1", 3);
      const early = stateRowBytes(sql);
      s = runRounds(
        store,
        advance(s, { type: "llm_response", call_id: s.run!.awaiting_llm!, turn: text("ok") }, NOW).state,
        "m2",
        40,
      );
      // Ids and counters grow by a few characters; 40 call summaries would be kilobytes.
      expect(stateRowBytes(sql)).toBeLessThan(early + 100);
      expect(sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM run_calls").one().n).toBe(40);
      expect(new ConversationStore(sql).loadState()).toEqual(s);
    });
  });

  it("reads a state row of the earlier format (call summaries and replies inline) and moves them out on the next save", async () => {
    await withStore("store-legacy", (sql) => {
      const scratch = new ConversationStore(sql);
      let s = runRounds(scratch, initialState("c", "pi-1"), "m1", 1);
      s = advance(s, { type: "llm_response", call_id: s.run!.awaiting_llm!, turn: text("one") }, NOW).state;
      s = runRounds(scratch, s, "m2", 2);
      // What an older version wrote: the whole state but messages and tools in one row.
      const { messages: _m, tools: _t, ...inline } = s;
      sql.exec("DELETE FROM kv WHERE k = 'replies'");
      sql.exec("DELETE FROM run_calls");
      sql.exec("UPDATE kv SET v = ? WHERE k = 'state'", JSON.stringify(inline));

      const store = new ConversationStore(sql);
      const loaded = store.loadState()!;
      expect(loaded).toEqual(s);
      store.saveState(loaded);
      expect(new ConversationStore(sql).loadState()).toEqual(s);
      expect(stateRowBytes(sql)).toBeLessThan(JSON.stringify(inline).length);
    });
  });

  it("keeps the alarm's view (pending effects' due times, next deadline) equal to SQLite's, and reads it again after a rollback", async () => {
    await withStore("store-due-times", (sql) => {
      const store = new ConversationStore(sql);
      const fromSql = () => ({
        pending: sql
          .exec<{ id: number; next_at: number }>("SELECT id, next_at FROM outbox WHERE done = 0 ORDER BY id")
          .toArray()
          .map((r) => [r.id, r.next_at]),
        deadline: sql.exec<{ at: number | null }>("SELECT MIN(at) AS at FROM deadlines").one().at ?? null,
      });
      const fromStore = () => ({
        pending: store
          .pendingTimes()
          .map((r) => [r.id, r.next_at])
          .sort((a, b) => a[0]! - b[0]!),
        deadline: store.nextDeadline(),
      });
      expect(fromStore()).toEqual({ pending: [], deadline: null });
      const a = store.addOutbox("llm:a", { type: "call_llm", call_id: "a", with_tools: true }, NOW)!;
      const b = store.addOutbox("llm:b", { type: "call_llm", call_id: "b", with_tools: true }, NOW + 1)!;
      expect(store.addOutbox("llm:a", { type: "call_llm", call_id: "a", with_tools: true }, NOW + 2)).toBeNull();
      store.setDeadline("approval:x", NOW + 500);
      store.setDeadline("approval:y", NOW + 100);
      expect(fromStore()).toEqual(fromSql());
      store.retryOutboxLater(a, NOW + 9_000);
      store.finishOutbox(b);
      store.clearDeadline("approval:y");
      expect(fromStore()).toEqual(fromSql());
      expect(fromStore()).toEqual({ pending: [[a, NOW + 9_000]], deadline: NOW + 500 });
      // Finished in memory only: gone from the alarm's view at once, from SQLite with the next save.
      store.finishOutboxLater(a);
      expect(store.pendingTimes()).toEqual([]);

      expect(fromStore()).toEqual({ pending: [], deadline: NOW + 500 });
    });
  });

  it("forgets what a rolled-back transaction did, after afterRollback", async () => {
    const stub = env.CONVERSATION.get(env.CONVERSATION.idFromName(`store-rollback-${crypto.randomUUID()}`));
    await runInDurableObject(stub, (_o, state) => {
      const store = new ConversationStore(state.storage.sql);
      const s = runRounds(store, initialState("c", "pi-1"), "m1", 1);
      store.setDeadline("approval:x", NOW + 500);
      expect(store.pendingTimes()).toEqual([]);
      const before = { deadline: store.nextDeadline(), messages: s.messages.length };
      // A step whose transaction throws after its writes: SQLite rolls them back.
      const next = advance(
        s,
        { type: "llm_response", call_id: s.run!.awaiting_llm!, turn: calls(["bash", { command: "echo x" }, "m1-cx"]) },
        NOW,
      ).state;
      expect(() =>
        state.storage.transactionSync(() => {
          store.saveState(next);
          store.addOutbox("llm:z", { type: "call_llm", call_id: "z", with_tools: true }, NOW);
          store.setDeadline("approval:y", NOW + 100);
          throw new Error("boom");
        }),
      ).toThrow("boom");
      store.afterRollback();
      expect(store.pendingTimes()).toEqual([]);
      expect(store.nextDeadline()).toBe(before.deadline);
      // The next save writes the step again (the store no longer believes its messages are stored).
      store.saveState(next);
      expect(new ConversationStore(state.storage.sql).loadState()!.messages).toHaveLength(next.messages.length);
      expect(next.messages.length).toBeGreaterThan(before.messages);
    });
  });
});
