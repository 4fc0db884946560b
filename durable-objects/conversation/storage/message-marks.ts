/** At most this many messages lie between two marks: what reading from one message costs. */
import type { ConversationSchema } from "./conversation-schema.js";

export const MARK_SPACING = 64;

type Mark = { m: number; ev: number; n: number };

/**
 * Where the log's messages are, sparsely: every MARK_SPACING messages or so, the number of a log
 * row's first message and the row's key. Reading from message `m` starts at the latest mark
 * before it and walks the log from there, so a range of the history costs about the range, not
 * the history before it (docs/architecture.md#bounded-memory). A mark is one more row written,
 * once per MARK_SPACING messages, where an index on every step row would double the step's writes.
 */
export class MessageMarks {
  /** the latest mark's message number; read on first use */
  private last: number | null = null;

  constructor(
    private readonly sql: SqlStorage,
    /** the `message_marks` table (conversation-schema.ts): none before the first write */
    private readonly schema: ConversationSchema,
  ) {
    if (schema.exists && this.latest() === -1) this.markOldLog();
  }

  /** Forget what was read (a rollback may have undone a mark). */
  reset(): void {
    this.last = null;
  }

  /** A log row whose first message is number `first` was written at `key`. */
  written(first: number, key: [ev: number, n: number]): void {
    const last = this.latest();
    if (last >= 0 && first < last + MARK_SPACING) return;
    this.schema.ensure();
    this.sql.exec("INSERT OR REPLACE INTO message_marks (m, ev, n) VALUES (?, ?, ?)", first, key[0], key[1]);
    this.last = first;
  }

  /** The latest mark at or before message `m`; null when the log has no message. */
  atOrBefore(m: number): Mark | null {
    if (!this.schema.exists) return null;
    return (
      this.sql.exec<Mark>("SELECT m, ev, n FROM message_marks WHERE m <= ? ORDER BY m DESC LIMIT 1", m).toArray()[0] ??
      null
    );
  }

  /** -1 when there is no mark. */
  private latest(): number {
    if (!this.schema.exists) return -1;
    this.last ??= this.sql.exec<{ m: number | null }>("SELECT MAX(m) AS m FROM message_marks").one().m ?? -1;
    return this.last;
  }

  /** A log written before marks existed is marked once (its history is walked this one time). */
  private markOldLog(): void {
    let next = 0;
    for (const r of this.sql
      .exec<{ ev: number; n: number; k: number }>(
        "SELECT ev, n, json_array_length(messages) AS k FROM steps WHERE messages IS NOT NULL ORDER BY ev, n",
      )
      .toArray()) {
      this.written(next, [r.ev, r.n]);
      next += r.k;
    }
  }
}
