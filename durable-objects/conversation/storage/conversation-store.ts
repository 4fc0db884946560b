import type { ConversationEvent, ConversationEventData } from "@edgeloop/protocol";
import {
  type ChatMessage,
  type Compaction,
  callName,
  type HistoryWindow,
  type LoopState,
  windowStart,
} from "../core/index.js";
import { frozenJson } from "../llm/index.js";
import { ConversationSchema } from "./conversation-schema.js";
import { ImageStore } from "./image-store.js";
import type { OutboundEffect, OutboxRow } from "./outbound-effects.js";
import { PendingWork, type StoredWork } from "./pending-work.js";
import { type LogKey, StepLog } from "./step-log.js";

/** The state row: the loop state without what has rows or keys of its own, and the pending work. */
type StateRow = StoredWork & {
  loop: Omit<LoopState, "messages" | "history" | "tools" | "replies" | "compaction"> | null;
  /** how many messages the log holds */
  messages: number;
  /** the run whose call summaries the log holds from `calls_from` on, and how many */
  calls_of: string | null;
  calls: number;
  calls_from: LogKey | null;
};

/**
 * The conversation's SQLite. A step writes two rows: the state row (the loop state without its
 * messages, with the outbox and the deadlines, see PendingWork) and one row of the log with what
 * the step added (see StepLog). Both tables have no rowids, so neither write reads a row: a running
 * conversation holds its state in memory, and storage is for restarts. What changes once per
 * message at most (the tool list, the replies, the compaction, where the history in memory starts)
 * has a key of its own beside the state row, written when it changes. Loading reads only the
 * history the loop holds in memory (docs/architecture.md#bounded-memory).
 *
 * Within `batch` (a step, inside its transaction) the rows are written once, at the end; what is
 * done outside one is written at once.
 */
export class ConversationStore {
  /** the conversation's images, apart from the history (image-store.ts) */
  readonly images: ImageStore;
  private readonly schema: ConversationSchema;
  private readonly log: StepLog;
  private persistedMessages = 0;
  private persistedTools: LoopState["tools"] | null = null;
  private persistedCalls: { message_id: string | null; count: number; from: LogKey | null } = {
    message_id: null,
    count: 0,
    from: null,
  };
  private persistedReplies: { count: number; last: string | null } = { count: -1, last: null };
  /** the compaction the model's view is built from; written (and listed) when it is replaced */
  private persistedCompaction: string | null = null;
  /** where the history in memory started when last written (`HistoryWindow.from`) */
  private persistedHistoryFrom = 0;
  /** the state row's parts as last saved; read on first use, and again after a rollback */
  private work: PendingWork | null = null;
  private loopJson = "null";
  private stateChanged = false;
  private batching = 0;
  /** effects finished in memory only (see finishOutboxLater), still pending in the stored row */
  private readonly finishedLater = new Set<number>();

  constructor(private readonly sql: SqlStorage) {
    // The tables (conversation-schema.ts): a new conversation's come with its first write.
    this.schema = new ConversationSchema(sql);
    this.log = new StepLog(sql, this.schema);
    this.images = new ImageStore(sql, this.schema);
  }

  /** Whether a message with this id was already taken (queued, running or answered). */
  tookMessage(messageId: string): boolean {
    if (!this.schema.exists) return false;
    return this.sql.exec("SELECT 1 FROM taken_messages WHERE message_id = ?", messageId).toArray().length > 0;
  }

  /** One row per message, written in the transaction of the step that takes it. */
  takeMessage(messageId: string, at: number): void {
    this.schema.ensure();
    this.sql.exec("INSERT OR IGNORE INTO taken_messages (message_id, at) VALUES (?, ?)", messageId, at);
  }

  /** Small JSON values beside the loop state: built-ins' data (todos, canvas), the parent link. */
  getValue<T>(key: string): T | null {
    if (!this.schema.exists) return null;
    const row = this.sql.exec<{ v: string }>("SELECT v FROM builtin_kv WHERE k = ?", key).toArray()[0];
    return row ? (JSON.parse(row.v) as T) : null;
  }

  putValue(key: string, value: unknown): void {
    this.schema.ensure();
    this.sql.exec(
      "INSERT INTO builtin_kv (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v",
      key,
      JSON.stringify(value),
    );
  }

  loadState(): LoopState | null {
    if (!this.schema.exists) {
      this.readStateRow(undefined);
      return null;
    }
    const values = new Map(
      this.sql
        .exec<{ k: string; v: string }>("SELECT k, v FROM loop_kv")
        .toArray()
        .map((r) => [r.k, r.v]),
    );
    const stored = this.readStateRow(values.get("state"));
    if (!stored?.loop) return null;
    const value = <T>(k: string, fallback: T): T => {
      const v = values.get(k);
      return v === undefined ? fallback : (JSON.parse(v) as T);
    };
    const history = value<HistoryWindow | null>("history", null);
    this.persistedHistoryFrom = history?.from ?? 0;
    const messages = this.log.messages(this.persistedHistoryFrom);
    const calls = this.log.calls(stored.calls_from);
    this.persistedMessages = this.persistedHistoryFrom + messages.length;
    const replies = value<LoopState["replies"]>("replies", []);
    this.persistedReplies = { count: replies.length, last: replies.at(-1)?.message_id ?? null };
    const tools = value<LoopState["tools"]>("tools", []);
    this.persistedTools = tools;
    const compaction = value<Compaction | null>("compaction", null);
    this.persistedCompaction = compactionKey(compaction);
    const { run, ...rest } = stored.loop;
    return {
      ...rest,
      messages,
      ...(history ? { history } : {}),
      tools,
      replies,
      run: run ? { ...run, tool_calls: calls } : null,
      compaction,
    };
  }

  /**
   * The state row holds only what changes every step; what only grows (messages, the run's call
   * summaries) goes into the step's log row, and what changes once per message (tools, replies,
   * the compaction) is written when it does. Rewriting all of it made every step's write grow with
   * the conversation.
   */
  saveState(state: LoopState): void {
    const work = this.pending();
    const { messages, history, tools, replies, run, compaction, ...rest } = state;
    const runRow = run ? (({ tool_calls: _calls, ...r }) => r)(run) : null;
    this.loopJson = JSON.stringify({ ...rest, run: runRow });
    this.stateChanged = true;
    for (const id of this.finishedLater) work.finish(id);
    this.finishedLater.clear();
    if (run) {
      if (this.persistedCalls.message_id !== run.message_id) {
        this.persistedCalls = { message_id: run.message_id, count: 0, from: this.log.nextKey() };
      }
      this.log.addCalls(run.tool_calls.slice(this.persistedCalls.count).map((c) => JSON.stringify(c)));
      this.persistedCalls.count = run.tool_calls.length;
    }
    // Replies are only ever pushed (and the oldest dropped), so count and last id tell a change.
    const last = replies.at(-1)?.message_id ?? null;
    if (replies.length !== this.persistedReplies.count || last !== this.persistedReplies.last) {
      this.putLoopValue("replies", JSON.stringify(replies));
      this.persistedReplies = { count: replies.length, last };
    }
    // The tool list (every schema) changes once per message at most: written only when replaced.
    if (tools !== this.persistedTools) {
      this.putLoopValue("tools", JSON.stringify(tools));
      this.persistedTools = tools;
    }
    // The summary can be kilobytes: written when a compaction replaces it, not with every step.
    const key = compactionKey(compaction);
    if (key !== this.persistedCompaction) {
      this.putLoopValue("compaction", JSON.stringify(compaction));
      if (compaction) {
        this.schema.ensure("compactions");
        this.sql.exec("INSERT INTO compactions (json) VALUES (?)", JSON.stringify(compaction));
      }
      this.persistedCompaction = key;
    }
    // Messages leave memory only once stored (core/history.ts), so what is new is in memory.
    const from = history?.from ?? 0;
    if (from > this.persistedMessages)
      throw new Error(`messages ${this.persistedMessages}…${from} left memory unstored`);
    if (from !== this.persistedHistoryFrom) {
      this.putLoopValue("history", JSON.stringify(history ?? null));
      this.persistedHistoryFrom = from;
    }
    // The same JSON the model requests are built from: each message is serialized once.
    this.log.addMessages(messages.slice(this.persistedMessages - from).map(frozenJson), this.persistedMessages);
    this.persistedMessages = from + messages.length;
    this.settle();
  }

  /** Stored messages `from` up to (not including) `to`: the history memory no longer holds. */
  messages(from: number, to: number): ChatMessage[] {
    return this.log.messages(from, to);
  }

  /**
   * The name of a tool call that only storage still holds (memory holds the history from
   * `windowStart` on); undefined when memory has it or nobody does.
   */
  olderCallName(state: LoopState | null, toolCallId: string): string | undefined {
    if (!state || windowStart(state) === 0 || callName(state, toolCallId) !== null) return undefined;
    return this.log.callName(toolCallId) ?? undefined;
  }

  /** Every compaction, oldest first. */
  compactions(): Compaction[] {
    if (!this.schema.has("compactions")) return [];
    return this.sql
      .exec<{ json: string }>("SELECT json FROM compactions ORDER BY seq")
      .toArray()
      .map((r) => JSON.parse(r.json) as Compaction);
  }

  /**
   * Runs `fn` (a step's writes, inside the caller's transaction) and then writes what it did: one
   * log row and the state row. If `fn` throws, nothing more is written: the caller rolls back and
   * calls `afterRollback`.
   */
  batch<T>(fn: () => T): T {
    this.batching++;
    let result: T;
    try {
      result = fn();
    } finally {
      this.batching--;
    }
    this.settle();
    return result;
  }

  appendEvent(event: ConversationEventData, at: number): ConversationEvent {
    this.pending();
    const seq = this.log.addEvent(event, at);
    this.settle();
    return { ...event, seq, at };
  }

  /** Events after `afterSeq`, at most `limit`, oldest first. */
  events(afterSeq = 0, limit = 1000): ConversationEvent[] {
    return this.log.events(afterSeq, limit);
  }

  /** Returns the entry's id, or null if an effect with that key is already pending. */
  addOutbox(key: string, effect: OutboundEffect, now: number): number | null {
    const id = this.pending().add(key, effect, now);
    if (id !== null) this.changed();
    return id;
  }

  finishOutbox(id: number): void {
    this.finishedLater.delete(id);
    if (this.pending().finish(id)) this.changed();
  }

  /**
   * For effects that may safely be performed twice: done in memory now, in SQLite with the next
   * state write (docs/architecture.md#outbox-re-drive).
   */
  finishOutboxLater(id: number): void {
    if (this.pending().finish(id)) this.finishedLater.add(id);
  }

  attempts(id: number): number {
    return this.pending().attempts(id);
  }

  retryOutboxLater(id: number, at: number): void {
    if (this.pending().retry(id, at)) this.changed();
  }

  pendingOutbox(): OutboxRow[] {
    return this.pending().pending();
  }

  /** When each pending effect is next due: the alarm is rescheduled after every step. */
  pendingTimes(): { id: number; next_at: number }[] {
    return this.pending().times();
  }

  setDeadline(key: string, at: number): void {
    this.pending().setDeadline(key, at);
    this.changed();
  }

  clearDeadline(key: string): void {
    if (this.pending().clearDeadline(key)) this.changed();
  }

  dueDeadlines(now: number): { key: string; at: number }[] {
    return this.pending().due(now);
  }

  nextDeadline(): number | null {
    return this.pending().nextDeadline();
  }

  /**
   * A transaction that threw was rolled back, so what this store remembers of SQLite may be ahead
   * of it: forget it and read it again (the next save rewrites what it cannot tell).
   */
  afterRollback(): void {
    this.schema.afterRollback();
    this.log.reset();
    this.stateChanged = false;
    this.work = null;
    this.persistedTools = null;
    this.persistedReplies = { count: -1, last: null };
    const row = this.loopValue("compaction");
    this.persistedCompaction = compactionKey(row ? (JSON.parse(row.v) as Compaction | null) : null);
    const history = this.loopValue("history");
    this.persistedHistoryFrom = history ? ((JSON.parse(history.v) as HistoryWindow | null)?.from ?? 0) : 0;
    this.pending();
  }

  // ---- writing -------------------------------------------------------------------------------

  /** The pending work, with the state row read first if this instance has not read it yet. */
  private pending(): PendingWork {
    if (!this.work) this.readStateRow(this.loopValue("state")?.v);
    return this.work!;
  }

  private readStateRow(json: string | undefined): StateRow | null {
    const stored = json ? (JSON.parse(json) as StateRow) : null;
    this.work = new PendingWork(stored);
    for (const id of this.finishedLater) this.work.finish(id);
    this.loopJson = JSON.stringify(stored?.loop ?? null);
    this.persistedMessages = stored?.messages ?? 0;
    this.persistedCalls = {
      message_id: stored?.calls_of ?? null,
      count: stored?.calls ?? 0,
      from: stored?.calls_from ?? null,
    };
    return stored;
  }

  private changed(): void {
    this.stateChanged = true;
    this.settle();
  }

  private settle(): void {
    if (this.batching > 0) return;
    this.log.write();
    if (!this.stateChanged) return;
    this.stateChanged = false;
    const c = this.persistedCalls;
    const calls = `"calls_of":${JSON.stringify(c.message_id)},"calls":${c.count},"calls_from":${JSON.stringify(c.from)}`;
    const json = `{"loop":${this.loopJson},"messages":${this.persistedMessages},${calls},${this.work!.json()}}`;
    this.putLoopValue("state", json);
  }

  private loopValue(key: string): { v: string } | undefined {
    if (!this.schema.exists) return undefined;
    return this.sql.exec<{ v: string }>("SELECT v FROM loop_kv WHERE k = ?", key).toArray()[0];
  }

  private putLoopValue(key: string, json: string): void {
    this.schema.ensure();
    this.sql.exec("INSERT INTO loop_kv (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v", key, json);
  }
}

/** A compaction is never changed once made: when and where it cut tell it apart. */
function compactionKey(c: Compaction | null): string | null {
  return c ? `${c.at}:${c.upto}` : null;
}
