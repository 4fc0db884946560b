import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ConversationStore } from "../../durable-objects/conversation/conversation-store.js";
import { advance, initialState, type LoopState } from "../../durable-objects/conversation/core/index.js";
import { calls, ok, text, TOOLS } from "../unit/loop/fixtures.js";

const NOW = 1_700_000_000_000;

/** A fresh conversation object's own SQLite, with a store over it (the object makes the tables). */
async function withStore<T>(name: string, fn: (sql: SqlStorage) => T | Promise<T>): Promise<T> {
  const stub = env.CONVERSATION.get(env.CONVERSATION.idFromName(`${name}-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_o, state) => fn(state.storage.sql));
}

/** `rounds` tool rounds of one message, saved after every step as the object does. */
function runRounds(store: ConversationStore, state: LoopState, messageId: string, rounds: number): LoopState {
  let s = advance(state, { type: "user_message", message_id: messageId, text: `do ${messageId}`, tools: TOOLS }, NOW).state;
  store.saveState(s);
  for (let i = 0; i < rounds; i++) {
    s = advance(s, { type: "llm_response", call_id: s.run!.awaiting_llm!, turn: calls(["bash", { command: `echo ${i}` }, `${messageId}-c${i}`]) }, NOW).state;
    store.saveState(s);
    const call = s.run!.round![0]!;
    s = advance(s, { type: "tool_result", tool_call_id: call.id, request_id: call.request_id, outcome: ok("bash", `${i}`) }, NOW).state;
    store.saveState(s);
  }
  return s;
}

const stateRowBytes = (sql: SqlStorage) => sql.exec<{ n: number }>("SELECT length(v) AS n FROM kv WHERE k = 'state'").one().n;

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
      s = runRounds(store, advance(s, { type: "llm_response", call_id: s.run!.awaiting_llm!, turn: text("ok") }, NOW).state, "m2", 40);
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
});
