import type { ToolCommandFrame, ToolOutcome } from "@edgeloop/protocol";

/**
 * The hub's command ledger, in the DO's SQLite. A command is `queued` until the device has it,
 * `sent` once written to its socket, `accepted` once the device (or, for an MQTT device, the
 * broker) said it took it, and `done` once it has an outcome (from the device, or from the hub:
 * deadline, cancel). `delivered` says the conversation has taken the outcome. `late` marks a
 * device result that came after the hub had ended the call (docs/architecture.md#late-results).
 */
export type LedgerState = "queued" | "sent" | "accepted" | "done";

export type LedgerRow = {
  request_id: string;
  conversation_id: string;
  tool_call_id: string;
  tool: string;
  frame: ToolCommandFrame;
  state: LedgerState;
  deadline: number;
  created_at: number;
  outcome: ToolOutcome | null;
  delivered: boolean;
  /** who approved an approval-required call ("person", "rule:<id>"), for its audit row */
  approval?: string | null;
  /** the outcome came from the hub (deadline, cancel), not the device: a device result may still come */
  ended_by_hub?: boolean;
  /** a device result recorded after the hub had ended the call */
  late?: boolean;
};

/** A command as the hub first records it: no outcome yet, not delivered. */
export type NewCommand = Omit<LedgerRow, "outcome" | "delivered" | "ended_by_hub" | "late">;

type RawRow = {
  ended_by_hub: number | null;
  late: number | null;
  request_id: string;
  conversation_id: string;
  tool_call_id: string;
  tool: string;
  frame: string;
  state: string;
  deadline: number;
  created_at: number;
  outcome: string | null;
  delivered: number;
  approval: string | null;
};

/** Done and delivered commands are kept this long, so a late duplicate is recognised. */
const KEEP_DONE_MS = 60 * 60 * 1000;
const PRUNE_EVERY_MS = 10 * 60 * 1000;

export class Ledger {
  /** delivered in memory, marked in SQLite with the ledger's next write */
  private readonly deliveredLater = new Set<string>();
  /** commands sent but not yet inserted (see `stage`), by request id */
  private readonly staged = new Map<string, NewCommand>();
  /**
   * Rows not yet done, as they are in SQLite, by request id. This object is the table's only
   * writer and every write below keeps the map current, so the lookup each result and each
   * progress frame makes needs no query. Done rows are not kept (an hour of them at a high call
   * rate); only duplicates look them up.
   */
  private readonly openRows = new Map<string, LedgerRow>();
  /** `sent` rows the device has taken, whose `accepted` is not stored (see markAccepted). */
  private readonly acceptedInMemory = new Set<string>();

  /** when this instance last pruned done rows (see prune) */
  private prunedAt = 0;

  constructor(private readonly sql: SqlStorage) {
    // Keyed by request id without a rowid: a row is one b-tree write, and the id needs no index.
    sql.exec(
      `CREATE TABLE IF NOT EXISTS ledger (
        request_id TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        frame TEXT NOT NULL,
        state TEXT NOT NULL,
        deadline INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        outcome TEXT,
        delivered INTEGER NOT NULL DEFAULT 0,
        approval TEXT,
        ended_by_hub INTEGER NOT NULL DEFAULT 0,
        late INTEGER NOT NULL DEFAULT 0
      ) WITHOUT ROWID`,
    );
    // Done rows are kept an hour (to recognise late duplicates), so at a high call rate most rows
    // are done: the lookups of open and of undelivered rows (the alarm's, a hello's) use partial
    // indexes over the few that are not.
    sql.exec("CREATE INDEX IF NOT EXISTS ledger_pending ON ledger(deadline) WHERE state != 'done'");
    sql.exec(
      "CREATE INDEX IF NOT EXISTS ledger_undelivered ON ledger(created_at) WHERE state = 'done' AND delivered = 0",
    );
  }

  get(requestId: string): LedgerRow | null {
    const staged = this.staged.get(requestId);
    if (staged) return newRow(staged);
    const open = this.openRows.get(requestId);
    if (open) return open;
    const rows = this.sql.exec<RawRow>("SELECT * FROM ledger WHERE request_id = ?", requestId).toArray();
    if (!rows[0]) return null;
    const row = decode(rows[0]);
    if (row.state !== "done") this.openRows.set(requestId, row);
    return this.deliveredLater.has(requestId) ? { ...row, delivered: true } : row;
  }

  /**
   * Known at once (to `get`), written with the ledger's next write or `flush`, after the frame
   * has left (docs/architecture.md#output-gates).
   */
  stage(row: NewCommand): void {
    this.staged.set(row.request_id, row);
  }

  /**
   * Writes what is kept in memory until the ledger's next write: staged commands, then delivered
   * marks. Every write and every read of more than one row goes through it first.
   */
  flush(): void {
    for (const row of this.staged.values()) this.insertRow(row);
    this.staged.clear();
    for (const id of this.deliveredLater) this.sql.exec("UPDATE ledger SET delivered = 1 WHERE request_id = ?", id);
    this.deliveredLater.clear();
  }

  /** A request id already known is left as it is: a re-dispatch changes nothing. */
  private insertRow(row: NewCommand): void {
    const cursor = this.sql.exec(
      `INSERT INTO ledger (request_id, conversation_id, tool_call_id, tool, frame, state, deadline, created_at, approval)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(request_id) DO NOTHING`,
      row.request_id,
      row.conversation_id,
      row.tool_call_id,
      row.tool,
      JSON.stringify(row.frame),
      row.state,
      row.deadline,
      row.created_at,
      row.approval ?? null,
    );
    if (cursor.rowsWritten > 0 && row.state !== "done") this.openRows.set(row.request_id, newRow(row));
  }

  markSent(requestId: string): void {
    this.flush();
    this.sql.exec("UPDATE ledger SET state = 'sent' WHERE request_id = ? AND state = 'queued'", requestId);
    const open = this.openRows.get(requestId);
    if (open?.state === "queued") this.openRows.set(requestId, { ...open, state: "sent" });
  }

  /**
   * The device (or its broker) took the command: a missing result is from now on `outcome_unknown`.
   * A `sent` row already ends that way, so its `accepted` is kept in memory only (it changes the
   * ending's wording, not its class) and a device round writes no extra row; a `queued` row must
   * not end `not_sent` after an eviction, so that change is stored.
   */
  markAccepted(requestId: string): void {
    const row = this.get(requestId);
    if (!row || row.state === "accepted" || row.state === "done") return;
    if (row.state === "queued") {
      this.flush();
      this.sql.exec("UPDATE ledger SET state = 'accepted' WHERE request_id = ? AND state = 'queued'", requestId);
    } else this.acceptedInMemory.add(requestId);
    this.openRows.set(requestId, { ...row, state: "accepted" });
  }

  /**
   * A device result for a call the hub had ended: kept once (the first late result), beside the
   * hub's outcome, which stays the call's ending. False if it is not late or one was kept already.
   */
  recordLate(requestId: string): boolean {
    this.flush();
    const cursor = this.sql.exec(
      "UPDATE ledger SET late = 1 WHERE request_id = ? AND state = 'done' AND ended_by_hub = 1 AND late = 0",
      requestId,
    );
    return cursor.rowsWritten > 0;
  }

  /**
   * Record the outcome once; returns false if the command already had one. An upsert over the
   * row's own values: it writes the row without reading it first, and a delivery noted before
   * (the usual order: the conversation is told first) is written with it.
   */
  complete(requestId: string, outcome: ToolOutcome, endedByHub = false): boolean {
    const delivered = this.deliveredLater.delete(requestId);
    this.flush();
    const row = this.get(requestId);
    if (!row || row.state === "done") {
      if (delivered) this.markDelivered(requestId);
      return false;
    }
    const cursor = this.sql.exec(
      `INSERT INTO ledger (request_id, conversation_id, tool_call_id, tool, frame, state, deadline, created_at, approval, outcome, delivered, ended_by_hub)
       VALUES (?, ?, ?, ?, ?, 'done', ?, ?, ?, ?, ?, ?)
       ON CONFLICT(request_id) DO UPDATE SET state = 'done', outcome = excluded.outcome, delivered = excluded.delivered,
         ended_by_hub = excluded.ended_by_hub
       WHERE ledger.state != 'done'`,
      row.request_id,
      row.conversation_id,
      row.tool_call_id,
      row.tool,
      JSON.stringify(row.frame),
      row.deadline,
      row.created_at,
      row.approval ?? null,
      JSON.stringify(outcome),
      delivered ? 1 : 0,
      endedByHub ? 1 : 0,
    );
    this.openRows.delete(requestId);
    return cursor.rowsWritten > 0;
  }

  markDelivered(requestId: string): void {
    this.deliveredLater.add(requestId);
    this.flush();
  }

  /**
   * Delivery is at-least-once (the conversation ignores a result it already has), so the mark
   * rides along with the ledger's next write instead of costing a commit of its own after every
   * result. A restart before then only redelivers.
   */
  markDeliveredLater(requestId: string): void {
    this.deliveredLater.add(requestId);
  }

  open(): LedgerRow[] {
    this.flush();
    return this.sql
      .exec<RawRow>("SELECT * FROM ledger WHERE state != 'done' ORDER BY created_at")
      .toArray()
      .map(decode);
  }

  expired(now: number): LedgerRow[] {
    this.flush();
    return this.sql
      .exec<RawRow>("SELECT * FROM ledger WHERE state != 'done' AND deadline <= ?", now)
      .toArray()
      .map((raw) => {
        const row = decode(raw);
        // What this instance knows beyond the stored state (an `accepted` kept in memory).
        return this.openRows.get(row.request_id)?.state === "accepted" ? { ...row, state: "accepted" } : row;
      });
  }

  /** A deadline moved later (see runtime/restart-window.ts); stored, so another restart sees it. */
  postpone(requestId: string, deadline: number): void {
    this.flush();
    this.sql.exec("UPDATE ledger SET deadline = ? WHERE request_id = ?", deadline, requestId);
  }

  undelivered(): LedgerRow[] {
    this.flush();
    return this.sql
      .exec<RawRow>("SELECT * FROM ledger INDEXED BY ledger_undelivered WHERE state = 'done' AND delivered = 0")
      .toArray()
      .map(decode);
  }

  hasUndelivered(): boolean {
    this.flush();
    return (
      this.sql
        .exec("SELECT 1 FROM ledger INDEXED BY ledger_undelivered WHERE state = 'done' AND delivered = 0 LIMIT 1")
        .toArray().length > 0
    );
  }

  nextDeadline(): number | null {
    this.flush();
    const row = this.sql
      .exec<{ d: number | null }>("SELECT MIN(deadline) AS d FROM ledger WHERE state != 'done'")
      .one();
    return row.d ?? null;
  }

  /**
   * Done rows past their hour go; this reads every done row, so it runs at most once per
   * PRUNE_EVERY_MS per instance, not with every alarm (an alarm per command deadline).
   */
  prune(now: number): void {
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    this.sql.exec("DELETE FROM ledger WHERE state = 'done' AND delivered = 1 AND created_at < ?", now - KEEP_DONE_MS);
  }

  counts(): Record<LedgerState, number> {
    this.flush();
    const out: Record<LedgerState, number> = { queued: 0, sent: 0, accepted: 0, done: 0 };
    for (const r of this.sql.exec<{ state: LedgerState; n: number }>(
      "SELECT state, COUNT(*) AS n FROM ledger GROUP BY state",
    ))
      out[r.state] = r.n;
    // Stored as `sent`, known here to be `accepted` (markAccepted).
    for (const id of this.acceptedInMemory) {
      if (this.openRows.get(id)?.state !== "accepted") this.acceptedInMemory.delete(id);
      else if (out.sent > 0) {
        out.sent--;
        out.accepted++;
      }
    }
    return out;
  }
}

/** A command's row as first written: no outcome yet, not delivered. */
function newRow(row: NewCommand): LedgerRow {
  return { ...row, outcome: null, delivered: false };
}

function decode(r: RawRow): LedgerRow {
  return {
    ...r,
    frame: JSON.parse(r.frame) as ToolCommandFrame,
    state: r.state as LedgerState,
    outcome: r.outcome ? (JSON.parse(r.outcome) as ToolOutcome) : null,
    delivered: r.delivered === 1,
    ended_by_hub: r.ended_by_hub === 1,
    late: r.late === 1,
  };
}
