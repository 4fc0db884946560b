/**
 * A conversation stored by an earlier version (a row per message, per event, per outbox entry and
 * per deadline, and before that replies and call summaries inside the state row) is read into the
 * current layout when its object starts, with nothing lost: same state, same event seqs, the same
 * work still pending.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ConversationStore } from "../../durable-objects/conversation/conversation-store.js";
import { advance, initialState, type LoopState } from "../../durable-objects/conversation/core/index.js";
import { calls, ok, TOOLS, text } from "../unit/loop/fixtures.js";

const NOW = 1_700_000_000_000;

/** The earlier layout, as that version created it. */
function createLegacyTables(sql: SqlStorage): void {
  sql.exec("CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
  sql.exec("CREATE TABLE messages (seq INTEGER PRIMARY KEY, json TEXT NOT NULL)");
  sql.exec("CREATE TABLE run_calls (seq INTEGER PRIMARY KEY, json TEXT NOT NULL)");
  sql.exec(
    "CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, at INTEGER NOT NULL, json TEXT NOT NULL)",
  );
  sql.exec(`CREATE TABLE outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, effect TEXT NOT NULL,
    done INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER NOT NULL)`);
  sql.exec("CREATE TABLE deadlines (key TEXT PRIMARY KEY, at INTEGER NOT NULL)");
}

/** Two messages, the second mid-run after two rounds. */
function conversation(): LoopState {
  let s = initialState("c", "pi-1");
  for (const [id, rounds] of [
    ["m1", 1],
    ["m2", 2],
  ] as const) {
    s = advance(s, { type: "user_message", message_id: id, text: `do ${id}`, tools: TOOLS }, NOW).state;
    for (let i = 0; i < rounds; i++) {
      const turn = calls(["bash", { command: `echo ${i}` }, `${id}-c${i}`]);
      s = advance(s, { type: "llm_response", call_id: s.run!.awaiting_llm!, turn }, NOW).state;
      const call = s.run!.round![0]!;
      const outcome = ok("bash", `${i}`);
      s = advance(s, { type: "tool_result", tool_call_id: call.id, request_id: call.request_id, outcome }, NOW).state;
    }
    if (id === "m1")
      s = advance(s, { type: "llm_response", call_id: s.run!.awaiting_llm!, turn: text("one") }, NOW).state;
  }
  return s;
}

/** Writes `s` as the earlier version did; `inline` = the form before replies and call summaries had rows. */
function writeLegacy(sql: SqlStorage, s: LoopState, inline: boolean): void {
  const { messages, tools, replies, run, ...rest } = s;
  for (const [i, m] of messages.entries())
    sql.exec("INSERT INTO messages (seq, json) VALUES (?, ?)", i, JSON.stringify(m));
  sql.exec("INSERT INTO kv (k, v) VALUES ('tools', ?)", JSON.stringify(tools));
  if (inline) {
    sql.exec("INSERT INTO kv (k, v) VALUES ('state', ?)", JSON.stringify({ ...rest, run, replies }));
    return;
  }
  const { tool_calls, ...runRow } = run!;
  sql.exec("INSERT INTO kv (k, v) VALUES ('state', ?)", JSON.stringify({ ...rest, run: runRow }));
  sql.exec("INSERT INTO kv (k, v) VALUES ('replies', ?)", JSON.stringify(replies));
  for (const [i, c] of tool_calls.entries())
    sql.exec("INSERT INTO run_calls (seq, json) VALUES (?, ?)", i, JSON.stringify(c));
}

async function inFreshObject(name: string, fn: (sql: SqlStorage) => void): Promise<void> {
  const stub = env.CONVERSATION.get(env.CONVERSATION.idFromName(`${name}-${crypto.randomUUID()}`));
  await runInDurableObject(stub, (_o, state) => {
    // The object made the current tables when it started: as if it had never run this version.
    for (const t of ["loop_kv", "steps"]) state.storage.sql.exec(`DROP TABLE ${t}`);
    fn(state.storage.sql);
  });
}

const tables = (sql: SqlStorage) =>
  sql
    .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .toArray()
    .map((r) => r.name);

describe("ConversationStore: a conversation stored in the earlier layout", () => {
  for (const inline of [false, true]) {
    it(`is read whole and written in the current layout${inline ? " (replies and call summaries inline)" : ""}`, async () => {
      await inFreshObject("legacy", (sql) => {
        createLegacyTables(sql);
        const s = conversation();
        writeLegacy(sql, s, inline);
        const store = new ConversationStore(sql);
        expect(store.loadState()).toEqual(s);
        expect(tables(sql)).not.toContain("messages");
        expect(tables(sql)).not.toContain("kv");
        // Saved and read again by a later instance: the same.
        store.saveState(s);
        expect(new ConversationStore(sql).loadState()).toEqual(s);
      });
    });
  }

  it("keeps its events' seqs and times, its pending outbox entries and its deadlines", async () => {
    await inFreshObject("legacy-work", (sql) => {
      createLegacyTables(sql);
      writeLegacy(sql, conversation(), false);
      const event = (type: string, at: number, delta: string) =>
        sql.exec(
          "INSERT INTO events (type, at, json) VALUES (?, ?, ?)",
          type,
          at,
          JSON.stringify({ type: "message_delta", delta }),
        );
      event("message_delta", NOW, "a");
      event("message_delta", NOW, "b");
      event("message_delta", NOW + 5, "c");
      const effect = (key: string, callId: string, done: number) =>
        sql.exec(
          "INSERT INTO outbox (key, effect, done, attempts, next_at) VALUES (?, ?, ?, 2, ?)",
          key,
          JSON.stringify({ type: "call_llm", call_id: callId, with_tools: true }),
          done,
          NOW + 10,
        );
      effect("llm:old", "old", 1);
      effect("llm:new", "new", 0);
      sql.exec("INSERT INTO deadlines (key, at) VALUES ('approval:x', ?)", NOW + 99);

      const store = new ConversationStore(sql);
      expect(store.events().map((e) => [e.seq, e.type === "message_delta" ? e.delta : "", e.at])).toEqual([
        [1, "a", NOW],
        [2, "b", NOW],
        [3, "c", NOW + 5],
      ]);
      expect(store.pendingOutbox()).toEqual([
        { id: 2, effect: { type: "call_llm", call_id: "new", with_tools: true }, attempts: 2, next_at: NOW + 10 },
      ]);
      expect(store.nextDeadline()).toBe(NOW + 99);
      expect(store.appendEvent({ type: "message_delta", delta: "d" }, NOW).seq).toBe(4);
      expect(tables(sql).filter((t) => ["events", "outbox", "deadlines", "run_calls"].includes(t))).toEqual([]);
      const restarted = new ConversationStore(sql);
      expect(restarted.events(2).map((e) => e.seq)).toEqual([3, 4]);
      expect(restarted.pendingTimes()).toEqual([{ id: 2, next_at: NOW + 10 }]);
    });
  });
});
