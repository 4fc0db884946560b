import type { ConversationEvent, ConversationEventData, ToolCallSummary } from "@edgeloop/protocol";
import type { ChatMessage } from "../core/index.js";
import type { ConversationSchema } from "./conversation-schema.js";
import { MessageMarks } from "./message-marks.js";

/** Where a row sits in the log: its first event's seq (or the next one's), then its number. */
export type LogKey = [ev: number, n: number];

/** One row of the log being gathered: what one step added, in the order it happened. */
type Row = { ev: number; at: number; events: string[]; messages: string[]; m: number | null; calls: string[] };

/**
 * The conversation's log, one row per step with what the step added: its messages, its events and
 * the run's new call summaries, each list as a JSON array. Rows are keyed by (the seq of their first
 * event, or of the next event when they have none; a running number), in a table without rowids:
 * appending a row reads nothing, and the events after a seq are found by key. Event seqs are
 * consecutive from 1, so an event's seq is its row's first seq plus its place in the row. Messages
 * are numbered from 0 in the same way; MessageMarks finds a range of them without reading what
 * comes before it (docs/architecture.md#bounded-memory). The store writes a row with every step
 * and whenever an event is stored alone.
 */
export class StepLog {
  /** the next event's seq and the next row's number; read on first use */
  private cursor: { seq: number; n: number } | null = null;
  private row: Row | null = null;
  private readonly marks: MessageMarks;

  constructor(
    private readonly sql: SqlStorage,
    /** the `steps` table (conversation-schema.ts): none before the first write */
    private readonly schema: ConversationSchema,
  ) {
    this.marks = new MessageMarks(sql, schema);
  }

  /** Forget the row being gathered and where the log ends (a rollback undid them). */
  reset(): void {
    this.cursor = null;
    this.row = null;
    this.marks.reset();
  }

  /** The key the next row will have. */
  nextKey(): LogKey {
    const c = this.end();
    return [this.row ? this.row.ev : c.seq, c.n];
  }

  /** `first`: the number of the first of them. */
  addMessages(json: string[], first: number): void {
    if (json.length === 0) return;
    const row = this.open(null);
    row.m ??= first;
    row.messages.push(...json);
  }

  addCalls(json: string[]): void {
    if (json.length > 0) this.open(null).calls.push(...json);
  }

  /** Adds an event to the row being gathered; returns its seq. */
  addEvent(event: ConversationEventData, at: number): number {
    const row = this.open(at);
    row.events.push(JSON.stringify(event));
    return this.end().seq++;
  }

  /** Writes the row gathered so far, if it holds anything. */
  write(): void {
    const row = this.row;
    this.row = null;
    if (!row || (row.events.length === 0 && row.messages.length === 0 && row.calls.length === 0)) return;
    const list = (items: string[]) => (items.length > 0 ? `[${items.join(",")}]` : null);
    const n = this.end().n++;
    this.schema.ensure();
    this.sql.exec(
      "INSERT INTO steps (ev, n, at, events, messages, calls) VALUES (?, ?, ?, ?, ?, ?)",
      row.ev,
      n,
      row.at,
      list(row.events),
      list(row.messages),
      list(row.calls),
    );
    if (row.m !== null) this.marks.written(row.m, [row.ev, n]);
  }

  /** Messages `from` up to (not including) `to`, oldest first. */
  messages(from: number, to = Number.MAX_SAFE_INTEGER): ChatMessage[] {
    if (to <= from) return [];
    const mark = this.marks.atOrBefore(from);
    if (!mark) return [];
    const out: ChatMessage[] = [];
    let at = mark.m;
    for (const r of this.sql.exec<{ k: number; messages: string }>(
      "SELECT json_array_length(messages) AS k, messages FROM steps WHERE messages IS NOT NULL AND (ev, n) >= (?, ?) ORDER BY ev, n",
      mark.ev,
      mark.n,
    )) {
      if (at >= to) break;
      // Rows between the mark and `from` are counted, not parsed.
      if (at + r.k > from)
        out.push(...(JSON.parse(r.messages) as ChatMessage[]).slice(Math.max(0, from - at), to - at));
      at += r.k;
    }
    return out;
  }

  /** The name of the tool call `id`, searched from the latest message back; else null. */
  callName(id: string): string | null {
    if (!this.schema.exists) return null;
    for (const r of this.sql.exec<{ messages: string }>(
      "SELECT messages FROM steps WHERE messages IS NOT NULL AND instr(messages, ?) > 0 ORDER BY ev DESC, n DESC",
      JSON.stringify(id),
    )) {
      for (const m of JSON.parse(r.messages) as ChatMessage[]) {
        const call = m.role === "assistant" ? m.tool_calls?.find((c) => c.id === id) : undefined;
        if (call) return call.function.name;
      }
    }
    return null;
  }

  /** The call summaries of the rows from `from` on. */
  calls(from: LogKey | null): ToolCallSummary[] {
    if (!from || !this.schema.exists) return [];
    const calls: ToolCallSummary[] = [];
    for (const r of this.sql.exec<{ calls: string }>(
      "SELECT calls FROM steps WHERE calls IS NOT NULL AND (ev, n) >= (?, ?) ORDER BY ev, n",
      from[0],
      from[1],
    )) {
      calls.push(...(JSON.parse(r.calls) as ToolCallSummary[]));
    }
    return calls;
  }

  /** Events after `afterSeq`, at most `limit`, oldest first. */
  events(afterSeq: number, limit: number): ConversationEvent[] {
    if (!this.schema.exists) return [];
    // The row holding event afterSeq + 1 may start before it.
    const rows = this.sql
      .exec<{ ev: number; at: number; events: string }>(
        `SELECT ev, at, events FROM steps WHERE events IS NOT NULL AND ev >= COALESCE(
           (SELECT ev FROM steps WHERE ev <= ? AND events IS NOT NULL ORDER BY ev DESC, n DESC LIMIT 1), 0)
         ORDER BY ev, n LIMIT ?`,
        afterSeq + 1,
        limit + 1,
      )
      .toArray();
    const out: ConversationEvent[] = [];
    for (const r of rows) {
      const events = JSON.parse(r.events) as ConversationEventData[];
      for (let i = 0; i < events.length && out.length < limit; i++) {
        if (r.ev + i > afterSeq) out.push({ ...events[i]!, seq: r.ev + i, at: r.at });
      }
    }
    return out;
  }

  private end(): { seq: number; n: number } {
    if (!this.cursor) {
      const last = !this.schema.exists
        ? undefined
        : this.sql
            .exec<{ ev: number; n: number; k: number | null }>(
              "SELECT ev, n, json_array_length(events) AS k FROM steps ORDER BY ev DESC, n DESC LIMIT 1",
            )
            .toArray()[0];
      this.cursor = last ? { seq: last.ev + (last.k ?? 0), n: last.n + 1 } : { seq: 1, n: 0 };
    }
    return this.cursor;
  }

  /** The row being gathered; one whose events are of another time is written first. */
  private open(at: number | null): Row {
    if (this.row && at !== null && this.row.events.length > 0 && this.row.at !== at) this.write();
    this.row ??= { ev: this.end().seq, at: at ?? Date.now(), events: [], messages: [], m: null, calls: [] };
    if (at !== null && this.row.events.length === 0) this.row.at = at;
    return this.row;
  }
}
