import type { ConversationEvent, ConversationEventData } from "@edgeloop/protocol";
import type { ChatMessage, Compaction, LoopState } from "./core/index.js";
import type { OutboundEffect } from "./outbound-effects.js";
import type { StoredWork } from "./pending-work.js";

/** What a conversation stored in the earlier table layout, read back whole. */
export type LegacyConversation = {
  state: LoopState | null;
  events: ConversationEvent[];
  work: StoredWork;
};

/** The earlier layout's tables: one row per message, per event, per outbox entry and per deadline. */
const TABLES = ["kv", "messages", "run_calls", "events", "outbox", "deadlines"];

/**
 * Reads a conversation written by an earlier version (a `kv` table with the loop state and its
 * parts, a table each for messages, the run's call summaries, events, the outbox and deadlines,
 * and the forms before those: replies and call summaries inside the state row), or null when the
 * object has none of it. ConversationStore writes it again in its own layout and then calls
 * `dropLegacy`. Only the constructor of an object stored before the change uses this.
 */
export function readLegacy(sql: SqlStorage): LegacyConversation | null {
  const present = sql
    .exec<{ name: string }>(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (${TABLES.map((t) => `'${t}'`).join(", ")})`,
    )
    .toArray();
  if (present.length === 0) return null;
  const has = (t: string) => present.some((p) => p.name === t);
  const value = <T>(k: string): T | undefined => {
    if (!has("kv")) return undefined;
    const row = sql.exec<{ v: string }>("SELECT v FROM kv WHERE k = ?", k).toArray()[0];
    return row ? (JSON.parse(row.v) as T) : undefined;
  };
  const rows = <T extends Record<string, SqlStorageValue>>(table: string, query: string): T[] =>
    has(table) ? sql.exec<T>(query).toArray() : [];
  const state = value<LoopState>("state") ?? null;
  if (state) {
    // Replies and call summaries were kept inside the state row before they had places of their own.
    state.replies = value<LoopState["replies"]>("replies") ?? state.replies ?? [];
    if (state.run && !state.run.tool_calls) {
      state.run.tool_calls = rows<{ json: string }>("run_calls", "SELECT json FROM run_calls ORDER BY seq").map(
        (r) => JSON.parse(r.json) as NonNullable<LoopState["run"]>["tool_calls"][number],
      );
    }
    const compaction = value<Compaction | null>("compaction");
    if (compaction !== undefined) state.compaction = compaction;
    state.tools = value<LoopState["tools"]>("tools") ?? state.tools ?? [];
    state.messages = rows<{ json: string }>("messages", "SELECT json FROM messages ORDER BY seq").map(
      (r) => JSON.parse(r.json) as ChatMessage,
    );
  }
  const events = rows<{ seq: number; at: number; json: string }>(
    "events",
    "SELECT seq, at, json FROM events ORDER BY seq",
  ).map((r) => ({ ...(JSON.parse(r.json) as ConversationEventData), seq: r.seq, at: r.at }));
  const outbox = rows<{ id: number; key: string; effect: string; attempts: number; next_at: number }>(
    "outbox",
    "SELECT id, key, effect, attempts, next_at FROM outbox WHERE done = 0 ORDER BY id",
  ).map((r) => ({ ...r, effect: JSON.parse(r.effect) as OutboundEffect }));
  const deadlines = Object.fromEntries(
    rows<{ key: string; at: number }>("deadlines", "SELECT key, at FROM deadlines").map((r) => [r.key, r.at]),
  );
  return { state, events, work: { outbox, deadlines } };
}

/** Once its contents are written in the current layout. */
export function dropLegacy(sql: SqlStorage): void {
  for (const t of TABLES) sql.exec(`DROP TABLE IF EXISTS ${t}`);
}
