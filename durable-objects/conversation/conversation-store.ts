import type { ConversationEvent, ConversationEventData, ToolOutcome } from "../../protocol/index.js";
import type { RunRecord } from "../metrics/aggregate.js";
import type { ChatMessage, Compaction, Effect, LoopState } from "./core/index.js";
import { frozenJson } from "./llm/index.js";

/** A sub-conversation's reply going back to the call in its parent that started it (`task`). */
export type NotifyParent = {
  type: "notify_parent";
  message_id: string;
  parent: ParentLink;
  outcome: ToolOutcome;
};
export type ParentLink = { conversation_id: string; tool_call_id: string; request_id: string };

/** A finished run's numbers, written to the metrics shard its conversation hashes to. */
export type RecordMetrics = {
  type: "record_metrics";
  message_id: string;
  run: RunRecord | null;
  status: string;
  text: string | null;
  at: number;
};

/** A reply or event going to the message's `reply_url`, retried until acknowledged or expired. */
export type DeliverReply = { type: "deliver_reply"; key: string; url: string; payload: unknown; first_at: number };

/** Effects that leave the object (LLM, device hub, built-ins); kept in an outbox until they finish. */
export type OutboundEffect =
  | Extract<
      Effect,
      { type: "call_llm" | "dispatch_tool" | "cancel_tool" | "run_builtin" | "compact" | "record_denial" }
    >
  | NotifyParent
  | RecordMetrics
  | DeliverReply;
export type OutboxRow = { id: number; effect: OutboundEffect; attempts: number; next_at: number };

/**
 * The conversation's SQLite: loop state (without messages), the message history (append-only),
 * the event log, the outbox of effects started but not finished, and deadlines.
 */
export class ConversationStore {
  private persistedMessages = 0;
  private persistedTools: LoopState["tools"] | null = null;
  /** which run's call summaries the run_calls table holds, and how many */
  private persistedCalls: { message_id: string | null; count: number } = { message_id: null, count: 0 };
  private persistedReplies: { count: number; last: string | null } = { count: -1, last: null };
  /** the compaction the model's view is built from; written (and listed) when it is replaced */
  private persistedCompaction: string | null = null;
  /** effects finished in memory, marked done in SQLite with the next state write */
  private readonly finishedLater = new Set<number>();
  /**
   * When each pending outbox row is due, and each deadline, mirrored in memory (this object is
   * their only writer): the alarm is rescheduled after every step, and that read nothing more.
   * Loaded on first use; dropped by `afterRollback`.
   */
  private dueTimes: Map<number, number> | null = null;
  private deadlineTimes: Map<string, number> | null = null;

  constructor(private readonly sql: SqlStorage) {
    sql.exec("CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
    sql.exec("CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY, json TEXT NOT NULL)");
    // The running message's tool call summaries, append-only like the messages.
    sql.exec("CREATE TABLE IF NOT EXISTS run_calls (seq INTEGER PRIMARY KEY, json TEXT NOT NULL)");
    sql.exec(
      "CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, at INTEGER NOT NULL, json TEXT NOT NULL)",
    );
    sql.exec(`CREATE TABLE IF NOT EXISTS outbox (
      id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, effect TEXT NOT NULL,
      done INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER NOT NULL)`);
    // Finished rows stay (their keys keep an effect from being recorded twice), so the pending ones
    // are found through a partial index: the alarm looks them up after every step, and a scan
    // would grow with the conversation's whole history.
    sql.exec("CREATE INDEX IF NOT EXISTS outbox_pending ON outbox(id, next_at) WHERE done = 0");
    sql.exec("CREATE TABLE IF NOT EXISTS deadlines (key TEXT PRIMARY KEY, at INTEGER NOT NULL)");
    sql.exec("CREATE TABLE IF NOT EXISTS builtin_kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
    // Every compaction so far, for GET /v1/conversations/:id (the view uses only the latest).
    sql.exec("CREATE TABLE IF NOT EXISTS compactions (seq INTEGER PRIMARY KEY AUTOINCREMENT, json TEXT NOT NULL)");
    // Every message id taken, so a message posted again (a retry after a crash) is taken once.
    sql.exec("CREATE TABLE IF NOT EXISTS taken_messages (message_id TEXT PRIMARY KEY, at INTEGER NOT NULL)");
  }

  /** Whether a message with this id was already taken (queued, running or answered). */
  tookMessage(messageId: string): boolean {
    return this.sql.exec("SELECT 1 FROM taken_messages WHERE message_id = ?", messageId).toArray().length > 0;
  }

  /** Written in the same transaction as the step that takes the message. */
  takeMessage(messageId: string, at: number): void {
    this.sql.exec("INSERT OR IGNORE INTO taken_messages (message_id, at) VALUES (?, ?)", messageId, at);
  }

  /** Small JSON values beside the loop state: built-ins' data (todos, canvas), the parent link. */
  getValue<T>(key: string): T | null {
    const row = this.sql.exec<{ v: string }>("SELECT v FROM builtin_kv WHERE k = ?", key).toArray()[0];
    return row ? (JSON.parse(row.v) as T) : null;
  }

  putValue(key: string, value: unknown): void {
    this.sql.exec(
      "INSERT INTO builtin_kv (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v",
      key,
      JSON.stringify(value),
    );
  }

  loadState(): LoopState | null {
    const row = this.sql.exec<{ v: string }>("SELECT v FROM kv WHERE k = 'state'").toArray()[0];
    if (!row) return null;
    const state = JSON.parse(row.v) as LoopState;
    const replies = this.sql.exec<{ v: string }>("SELECT v FROM kv WHERE k = 'replies'").toArray()[0];
    // Rows written before the replies and call summaries had their own places still carry them inline.
    if (replies) {
      state.replies = JSON.parse(replies.v) as LoopState["replies"];
      this.persistedReplies = { count: state.replies.length, last: state.replies.at(-1)?.message_id ?? null };
    } else {
      // Inline (or none yet): the next save writes them to their own row.
      state.replies ??= [];
    }
    if (state.run && !state.run.tool_calls) {
      state.run.tool_calls = this.sql
        .exec<{ json: string }>("SELECT json FROM run_calls ORDER BY seq")
        .toArray()
        .map((r) => JSON.parse(r.json) as NonNullable<LoopState["run"]>["tool_calls"][number]);
      this.persistedCalls = { message_id: state.run.message_id, count: state.run.tool_calls.length };
    }
    const compaction = this.sql.exec<{ v: string }>("SELECT v FROM kv WHERE k = 'compaction'").toArray()[0];
    if (compaction) state.compaction = JSON.parse(compaction.v) as Compaction | null;
    this.persistedCompaction = compactionKey(state.compaction ?? null);
    const tools = this.sql.exec<{ v: string }>("SELECT v FROM kv WHERE k = 'tools'").toArray()[0];
    state.tools = tools ? (JSON.parse(tools.v) as LoopState["tools"]) : (state.tools ?? []);
    this.persistedTools = state.tools;
    state.messages = this.sql
      .exec<{ json: string }>("SELECT json FROM messages ORDER BY seq")
      .toArray()
      .map((r) => JSON.parse(r.json) as ChatMessage);
    this.persistedMessages = state.messages.length;
    return state;
  }

  /**
   * The state row holds only what changes every step; what only grows (messages, the run's call
   * summaries) is appended, and what changes once per message (tools, replies) is written when it
   * does. Rewriting all of it made every step's write grow with the conversation.
   */
  saveState(state: LoopState): void {
    for (const id of this.finishedLater) this.finishOutbox(id);
    this.finishedLater.clear();
    const { messages, tools, replies, run, compaction, ...rest } = state;
    const runRow = run ? (({ tool_calls: _calls, ...r }) => r)(run) : null;
    this.sql.exec(
      "INSERT INTO kv (k, v) VALUES ('state', ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v",
      JSON.stringify({ ...rest, run: runRow }),
    );
    if (run) {
      if (this.persistedCalls.message_id !== run.message_id) {
        this.sql.exec("DELETE FROM run_calls");
        this.persistedCalls = { message_id: run.message_id, count: 0 };
      }
      for (let i = this.persistedCalls.count; i < run.tool_calls.length; i++) {
        this.sql.exec("INSERT INTO run_calls (seq, json) VALUES (?, ?)", i, JSON.stringify(run.tool_calls[i]));
      }
      this.persistedCalls.count = run.tool_calls.length;
    }
    // Replies are only ever pushed (and the oldest dropped), so count and last id tell a change.
    const last = replies.at(-1)?.message_id ?? null;
    if (replies.length !== this.persistedReplies.count || last !== this.persistedReplies.last) {
      this.sql.exec(
        "INSERT INTO kv (k, v) VALUES ('replies', ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v",
        JSON.stringify(replies),
      );
      this.persistedReplies = { count: replies.length, last };
    }
    // The tool list (every schema) changes once per message at most: written only when replaced.
    if (tools !== this.persistedTools) {
      this.sql.exec(
        "INSERT INTO kv (k, v) VALUES ('tools', ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v",
        JSON.stringify(tools),
      );
      this.persistedTools = tools;
    }
    // The summary can be kilobytes: written when a compaction replaces it, not with every step.
    const key = compactionKey(compaction ?? null);
    if (key !== this.persistedCompaction) {
      this.sql.exec(
        "INSERT INTO kv (k, v) VALUES ('compaction', ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v",
        JSON.stringify(compaction ?? null),
      );
      if (compaction) this.sql.exec("INSERT INTO compactions (json) VALUES (?)", JSON.stringify(compaction));
      this.persistedCompaction = key;
    }
    for (let i = this.persistedMessages; i < messages.length; i++) {
      // The same JSON the model requests are built from: each message is serialized once.
      this.sql.exec("INSERT INTO messages (seq, json) VALUES (?, ?)", i, frozenJson(messages[i]!));
    }
    this.persistedMessages = messages.length;
  }

  /** Every compaction, oldest first. */
  compactions(): Compaction[] {
    return this.sql
      .exec<{ json: string }>("SELECT json FROM compactions ORDER BY seq")
      .toArray()
      .map((r) => JSON.parse(r.json) as Compaction);
  }

  appendEvent(event: ConversationEventData, at: number): ConversationEvent {
    const row = this.sql
      .exec<{ seq: number }>(
        "INSERT INTO events (type, at, json) VALUES (?, ?, ?) RETURNING seq",
        event.type,
        at,
        JSON.stringify(event),
      )
      .one();
    return { ...event, seq: row.seq, at };
  }

  events(afterSeq = 0, limit = 1000): ConversationEvent[] {
    return this.sql
      .exec<{ seq: number; at: number; json: string }>(
        "SELECT seq, at, json FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
        afterSeq,
        limit,
      )
      .toArray()
      .map((r) => ({ ...(JSON.parse(r.json) as ConversationEventData), seq: r.seq, at: r.at }));
  }

  /** Returns the row id, or null if an effect with that key was already recorded. */
  addOutbox(key: string, effect: OutboundEffect, now: number): number | null {
    const rows = this.sql
      .exec<{ id: number }>(
        "INSERT INTO outbox (key, effect, next_at) VALUES (?, ?, ?) ON CONFLICT(key) DO NOTHING RETURNING id",
        key,
        JSON.stringify(effect),
        now,
      )
      .toArray();
    const id = rows[0]?.id ?? null;
    if (id !== null) this.dueTimes?.set(id, now);
    return id;
  }

  finishOutbox(id: number): void {
    this.sql.exec("UPDATE outbox SET done = 1 WHERE id = ?", id);
    this.dueTimes?.delete(id);
  }

  /**
   * For effects that may safely be performed twice (the hub ignores a dispatch it already has):
   * done in memory now, in SQLite with the next state write, so finishing one costs no commit of
   * its own (each commit is a disk flush, and in production a replication round trip). A restart
   * before that write re-drives the effect, which then changes nothing.
   */
  finishOutboxLater(id: number): void {
    this.finishedLater.add(id);
    this.dueTimes?.delete(id);
  }

  attempts(id: number): number {
    return (
      this.sql.exec<{ attempts: number }>("SELECT attempts FROM outbox WHERE id = ?", id).toArray()[0]?.attempts ?? 0
    );
  }

  retryOutboxLater(id: number, at: number): void {
    this.sql.exec("UPDATE outbox SET attempts = attempts + 1, next_at = ? WHERE id = ?", at, id);
    if (this.dueTimes?.has(id)) this.dueTimes.set(id, at);
  }

  pendingOutbox(): OutboxRow[] {
    return this.sql
      .exec<{ id: number; effect: string; attempts: number; next_at: number }>(
        "SELECT id, effect, attempts, next_at FROM outbox WHERE done = 0 ORDER BY id",
      )
      .toArray()
      .filter((r) => !this.finishedLater.has(r.id))
      .map((r) => ({
        id: r.id,
        effect: JSON.parse(r.effect) as OutboundEffect,
        attempts: r.attempts,
        next_at: r.next_at,
      }));
  }

  /** When each pending effect is next due, without parsing the effects: the alarm runs this after every step. */
  pendingTimes(): { id: number; next_at: number }[] {
    if (!this.dueTimes) {
      const rows = this.sql
        .exec<{ id: number; next_at: number }>("SELECT id, next_at FROM outbox WHERE done = 0")
        .toArray();
      this.dueTimes = new Map(rows.filter((r) => !this.finishedLater.has(r.id)).map((r) => [r.id, r.next_at]));
    }
    return [...this.dueTimes].map(([id, next_at]) => ({ id, next_at }));
  }

  setDeadline(key: string, at: number): void {
    this.sql.exec(
      "INSERT INTO deadlines (key, at) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET at = excluded.at",
      key,
      at,
    );
    this.deadlineTimes?.set(key, at);
  }

  clearDeadline(key: string): void {
    this.sql.exec("DELETE FROM deadlines WHERE key = ?", key);
    this.deadlineTimes?.delete(key);
  }

  dueDeadlines(now: number): string[] {
    return this.sql
      .exec<{ key: string }>("SELECT key FROM deadlines WHERE at <= ? ORDER BY at", now)
      .toArray()
      .map((r) => r.key);
  }

  nextDeadline(): number | null {
    this.deadlineTimes ??= new Map(
      this.sql
        .exec<{ key: string; at: number }>("SELECT key, at FROM deadlines")
        .toArray()
        .map((r) => [r.key, r.at]),
    );
    let next: number | null = null;
    for (const at of this.deadlineTimes.values()) if (next === null || at < next) next = at;
    return next;
  }

  /**
   * A transaction that threw was rolled back, so what this store remembers of SQLite may be ahead
   * of it: forget it and read it again when needed (the next save rewrites what it cannot tell).
   */
  afterRollback(): void {
    this.dueTimes = null;
    this.deadlineTimes = null;
    this.persistedMessages = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM messages").one().n;
    this.persistedTools = null;
    this.persistedCalls = { message_id: null, count: 0 };
    this.persistedReplies = { count: -1, last: null };
    const row = this.sql.exec<{ v: string }>("SELECT v FROM kv WHERE k = 'compaction'").toArray()[0];
    this.persistedCompaction = compactionKey(row ? (JSON.parse(row.v) as Compaction | null) : null);
  }
}

/** A compaction is never changed once made: when and where it cut tell it apart. */
function compactionKey(c: Compaction | null): string | null {
  return c ? `${c.at}:${c.upto}` : null;
}

export function outboxKey(effect: OutboundEffect): string {
  switch (effect.type) {
    case "call_llm":
      return `llm:${effect.call_id}`;
    case "dispatch_tool":
      return `dispatch:${effect.request_id}`;
    case "cancel_tool":
      return `cancel:${effect.request_id}`;
    case "run_builtin":
      return `builtin:${effect.request_id}`;
    case "notify_parent":
      return `parent:${effect.message_id}`;
    case "record_metrics":
      return `metrics:${effect.message_id}`;
    case "deliver_reply":
      return `deliver:${effect.key}`;
    case "compact":
      return `compact:${effect.call_id}`;
    case "record_denial":
      return `denial:${effect.request_id}`;
  }
}
