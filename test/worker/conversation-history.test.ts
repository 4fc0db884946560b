import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { historyLength, windowStart } from "../../durable-objects/conversation/core/history.js";
import type { ChatMessage } from "../../durable-objects/conversation/core/index.js";
import { ConversationStore } from "../../durable-objects/conversation/storage/conversation-store.js";
import { MARK_SPACING } from "../../durable-objects/conversation/storage/message-marks.js";
import { historyPage } from "../../durable-objects/conversation/views/history-page.js";
import { type Driver, driver, turn } from "../unit/loop/compaction-driver.js";

// docs/architecture.md#bounded-memory: memory holds the history since the latest compaction's kept
// part; storage holds all of it, read a range at a time.

async function withSql<T>(name: string, fn: (sql: SqlStorage) => T): Promise<T> {
  const stub = env.CONVERSATION.get(env.CONVERSATION.idFromName(`${name}-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_o, state) => fn(state.storage.sql));
}

/**
 * `turns` turns of a compacting conversation, each step saved as the shell commits it; returns
 * the driver and every message in order, as the conversation appended them.
 */
function converse(store: ConversationStore, turns: number): { d: Driver; all: ChatMessage[] } {
  const all: ChatMessage[] = [];
  const d = driver({ context_tokens: 8000, keep_recent_turns: 3 });
  d.committed = (s) => {
    all.push(...s.messages.slice(all.length - windowStart(s)));
    store.saveState(s);
  };
  for (let n = 1; n <= turns; n++) turn(d, n);
  return { d, all };
}

describe("the history in storage", () => {
  it("loads only the part memory holds, and reads any range of the rest", async () => {
    await withSql("history-load", (sql) => {
      const store = new ConversationStore(sql);
      const { d, all } = converse(store, 120);
      expect(all).toHaveLength(1 + 120 * 4);
      expect(historyLength(d.state)).toBe(all.length);
      expect(windowStart(d.state)).toBeGreaterThan(400);
      const loaded = new ConversationStore(sql).loadState()!;
      expect(loaded).toEqual(d.state);
      expect(loaded.messages.length).toBeLessThan(40);
      // Ranges that start on, before, after and between marks, and cross them.
      for (const [from, to] of [
        [0, 5],
        [MARK_SPACING - 2, MARK_SPACING + 3],
        [3 * MARK_SPACING, 3 * MARK_SPACING + 1],
        [100, 350],
        [all.length - 10, all.length],
        [0, all.length],
      ] as const) {
        expect(store.messages(from, to)).toEqual(all.slice(from, to));
      }
    });
  });

  it("pages the view across what is stored and what memory holds", async () => {
    await withSql("history-page", (sql) => {
      const store = new ConversationStore(sql);
      const { d, all } = converse(store, 60);
      const start = windowStart(d.state);
      expect(start).toBeGreaterThan(20);
      const straddling = historyPage(d.state, store, { before: start + 5, limit: 30 });
      expect(straddling).toEqual({
        messages: all.slice(start - 25, start + 5),
        messages_from: start - 25,
        messages_total: all.length,
      });
      const latest = historyPage(d.state, store, { limit: 10 });
      expect(latest.messages).toEqual(all.slice(-10));
      const forward = historyPage(d.state, store, { from: 0, limit: 1000 });
      expect(forward.messages).toEqual(all);
      expect(historyPage(d.state, store, { from: all.length, limit: 5 }).messages).toEqual([]);
    });
  });

  it("marks a log written before marks existed, once, and reads it the same", async () => {
    await withSql("history-old-log", (sql) => {
      const { all } = converse(new ConversationStore(sql), 40);
      sql.exec("DROP TABLE message_marks");
      const store = new ConversationStore(sql);
      expect(sql.exec<{ k: number }>("SELECT count(*) AS k FROM message_marks").one().k).toBeGreaterThan(1);
      expect(store.messages(0, all.length)).toEqual(all);
      expect(store.loadState()!.messages).toEqual(all.slice(windowStart(store.loadState()!)));
    });
  });

  it("a compaction's step rolled back leaves no trace: written again, it loads as the object holds it", async () => {
    const stub = env.CONVERSATION.get(env.CONVERSATION.idFromName(`history-rollback-${crypto.randomUUID()}`));
    await runInDurableObject(stub, (_o, state) => {
      const store = new ConversationStore(state.storage.sql);
      const d = driver({ context_tokens: 8000, keep_recent_turns: 3 });
      let failed = 0;
      d.committed = (s) => {
        // The first step that moves the history's start fails once after its writes (as a
        // transaction that throws does), then is written again.
        if (failed === 0 && windowStart(s) > 0) {
          expect(() =>
            state.storage.transactionSync(() => {
              store.batch(() => store.saveState(s));
              throw new Error("boom");
            }),
          ).toThrow("boom");
          store.afterRollback();
          failed += 1;
          store.saveState(s);
          expect(new ConversationStore(state.storage.sql).loadState()).toEqual(s);
          return;
        }
        store.saveState(s);
      };
      for (let n = 1; n <= 40; n++) turn(d, n);
      expect(failed).toBe(1);
      expect(windowStart(d.state)).toBeGreaterThan(0);
      expect(new ConversationStore(state.storage.sql).loadState()).toEqual(d.state);
    });
  });

  it("finds the name of a call memory no longer holds, for a late result", async () => {
    await withSql("history-late", (sql) => {
      const store = new ConversationStore(sql);
      const { d } = converse(store, 30);
      expect(windowStart(d.state)).toBeGreaterThan(8);
      expect(store.olderCallName(d.state, "c1")).toBe("bash");
      // Memory still holds the latest call: the core finds it itself.
      expect(store.olderCallName(d.state, "c30")).toBeUndefined();
      expect(store.olderCallName(d.state, "never-made")).toBeUndefined();
    });
  });
});
