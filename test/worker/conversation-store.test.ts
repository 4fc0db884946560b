import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { advance, initialState, type LoopState } from "../../durable-objects/conversation/core/index.js";
import { ConversationStore } from "../../durable-objects/conversation/storage/conversation-store.js";
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

const stateRow = (sql: SqlStorage) => sql.exec<{ v: string }>("SELECT v FROM loop_kv WHERE k = 'state'").one().v;
const stateRowBytes = (sql: SqlStorage) => stateRow(sql).length;

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
      // The log keeps every run's call summaries (m1's 3, m2's 40); the state holds the running one's.
      expect(sql.exec<{ n: number }>("SELECT SUM(json_array_length(calls)) AS n FROM steps").one().n).toBe(43);
      const loaded = new ConversationStore(sql).loadState()!;
      expect(loaded.run!.tool_calls).toHaveLength(40);
      expect(loaded).toEqual(s);
    });
  });

  it("keeps the alarm's view (pending effects' due times, next deadline) equal to SQLite's, and reads it again after a rollback", async () => {
    await withStore("store-due-times", (sql) => {
      const store = new ConversationStore(sql);
      const fromSql = () => {
        const row = JSON.parse(stateRow(sql)) as {
          outbox: { id: number; next_at: number }[];
          deadlines: Record<string, number>;
        };
        const deadlines = Object.values(row.deadlines);
        return {
          pending: row.outbox.map((r) => [r.id, r.next_at]).sort((a, b) => a[0]! - b[0]!),
          deadline: deadlines.length > 0 ? Math.min(...deadlines) : null,
        };
      };
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
      expect(fromSql()).toEqual({ pending: [[a, NOW + 9_000]], deadline: NOW + 500 });
      // Another instance (a restart) still has it, and re-drives it.
      expect(new ConversationStore(sql).pendingTimes()).toEqual([{ id: a, next_at: NOW + 9_000 }]);
      store.setDeadline("approval:z", NOW + 700);
      expect(fromSql()).toEqual({ pending: [], deadline: NOW + 500 });
      expect(fromStore()).toEqual({ pending: [], deadline: NOW + 500 });
    });
  });

  it("makes a new conversation's tables with its first write, again after a rollback, and the rest when used", async () => {
    const stub = env.CONVERSATION.get(env.CONVERSATION.idFromName(`store-tables-${crypto.randomUUID()}`));
    await runInDurableObject(stub, (_o, state) => {
      const sql = state.storage.sql;
      const tables = () =>
        sql
          .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
          .toArray()
          .map((r) => r.name)
          .filter((n) => !n.startsWith("_cf_") && n !== "sqlite_sequence");
      // The object started: nothing made, and every read finds nothing.
      expect(tables()).toEqual([]);
      const store = new ConversationStore(sql);
      expect(store.loadState()).toBeNull();
      expect(store.tookMessage("m1")).toBe(false);
      expect(store.getValue("parent")).toBeNull();
      expect(store.events()).toEqual([]);
      expect(store.messages(0, 10)).toEqual([]);
      expect(store.compactions()).toEqual([]);
      expect(store.images.get("0".repeat(64))).toBeNull();
      expect(store.pendingTimes()).toEqual([]);
      expect(tables()).toEqual([]);
      // The first step's transaction makes them, and a rollback takes them away with the step.
      const first = advance(
        initialState("c", "pi-1"),
        { type: "user_message", message_id: "m1", text: "do m1", tools: TOOLS },
        NOW,
      ).state;
      expect(() =>
        state.storage.transactionSync(() => {
          store.batch(() => {
            store.takeMessage("m1", NOW);
            store.saveState(first);
          });
          throw new Error("boom");
        }),
      ).toThrow("boom");
      store.afterRollback();
      expect(tables()).toEqual([]);
      expect(store.loadState()).toBeNull();
      state.storage.transactionSync(() =>
        store.batch(() => {
          store.takeMessage("m1", NOW);
          store.saveState(first);
        }),
      );
      // What every run writes; the images' and the compactions' wait for the first of theirs.
      expect(tables()).toEqual(["builtin_kv", "loop_kv", "message_marks", "steps", "taken_messages"]);
      expect(store.tookMessage("m1")).toBe(true);
      expect(new ConversationStore(sql).loadState()).toEqual(first);
      expect(store.images.get("0".repeat(64))).toBeNull();
      const ref = store.images.put(new Uint8Array([1, 2, 3]), "image/png", "c");
      expect(tables()).toContain("images");
      expect(store.images.get(ref.sha256)?.bytes).toEqual(new Uint8Array([1, 2, 3]));
      // An object that starts over tables made so far makes the rest.
      new ConversationStore(sql);
      expect(tables()).toEqual([
        "builtin_kv",
        "compactions",
        "image_chunks",
        "images",
        "loop_kv",
        "message_marks",
        "steps",
        "taken_messages",
      ]);
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
          store.batch(() => {
            store.saveState(next);
            store.addOutbox("llm:z", { type: "call_llm", call_id: "z", with_tools: true }, NOW);
            store.setDeadline("approval:y", NOW + 100);
            store.appendEvent({ type: "message_delta", delta: "lost" }, NOW);
          });
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
      // The rolled-back event's seq (the first) is given again, to the next event.
      expect(store.events()).toEqual([]);
      expect(store.appendEvent({ type: "message_delta", delta: "kept" }, NOW).seq).toBe(1);
      const deltas = store.events().flatMap((e) => (e.type === "message_delta" ? [e.delta] : []));
      expect(deltas).toEqual(["kept"]);
    });
  });

  it("writes a step as one log row and the state row, reading no row", async () => {
    await withStore("store-step-rows", (real) => {
      const counted: { query: string; read: number; written: number }[] = [];
      const sql = {
        exec: (query: string, ...bindings: unknown[]) => {
          const cursor = real.exec(query, ...bindings);
          const rows = cursor.toArray();
          counted.push({ query, read: cursor.rowsRead, written: cursor.rowsWritten });
          return { toArray: () => rows, one: () => rows[0], [Symbol.iterator]: () => rows[Symbol.iterator]() };
        },
      } as unknown as SqlStorage;
      const store = new ConversationStore(sql);
      let s = runRounds(store, initialState("c", "pi-1"), "m1", 1);
      s = advance(
        s,
        { type: "llm_response", call_id: s.run!.awaiting_llm!, turn: calls(["bash", { command: "ls" }, "c-ls"]) },
        NOW,
      ).state;
      counted.length = 0;
      store.batch(() => {
        store.saveState(s);
        store.addOutbox("dispatch:x", { type: "cancel_tool", request_id: "x" }, NOW);
        store.setDeadline("approval:x", NOW + 5);
        store.appendEvent({ type: "message_end", iteration: 2, content: null, tool_calls: 1 }, NOW);
        store.appendEvent({ type: "tool_execution_start", toolCallId: "c-ls", toolName: "bash", args: {} }, NOW);
      });
      expect(counted.map((c) => c.query.split(" (")[0])).toEqual(["INSERT INTO steps", "INSERT INTO loop_kv"]);
      expect(counted.map((c) => [c.read, c.written])).toEqual([
        [0, 1],
        [0, 1],
      ]);
    });
  });

  it("numbers events consecutively across steps and lone events, and pages them from inside a row", async () => {
    await withStore("store-events", (sql) => {
      const store = new ConversationStore(sql);
      const delta = (d: string, at: number) => store.appendEvent({ type: "message_delta", delta: d }, at);
      store.batch(() => {
        for (const d of ["a", "b", "c"]) delta(d, NOW);
      });
      delta("d", NOW + 1);
      store.batch(() => {
        delta("e", NOW + 2);
        // Another time within one step starts another row.
        delta("f", NOW + 3);
      });
      store.batch(() => store.saveState(initialState("c", "pi-1")));
      delta("g", NOW + 4);
      const all = new ConversationStore(sql).events();
      expect(all.map((e) => [e.seq, e.type === "message_delta" ? e.delta : "", e.at])).toEqual([
        [1, "a", NOW],
        [2, "b", NOW],
        [3, "c", NOW],
        [4, "d", NOW + 1],
        [5, "e", NOW + 2],
        [6, "f", NOW + 3],
        [7, "g", NOW + 4],
      ]);
      expect(store.events(1, 2).map((e) => e.seq)).toEqual([2, 3]);
      expect(store.events(2, 3).map((e) => e.seq)).toEqual([3, 4, 5]);
      expect(store.events(6).map((e) => e.seq)).toEqual([7]);
      expect(store.events(7)).toEqual([]);
      // A new instance continues the numbering.
      expect(new ConversationStore(sql).appendEvent({ type: "message_delta", delta: "h" }, NOW).seq).toBe(8);
    });
  });
});
