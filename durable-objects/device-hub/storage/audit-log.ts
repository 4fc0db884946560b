import type { ToolOutcome } from "@edgeloop/protocol";
import type { ToolStatsInput } from "../../metrics/tool-metrics.js";
import { redact } from "./redact.js";

/** One tool invocation as the audit log keeps it, with the ids that tie it to its conversation and command. */
export type AuditEntry = {
  timestamp: string;
  agent_id: string;
  tool: string;
  parameters: Record<string, unknown>;
  /** blocked: an approval decision stopped the call before it reached the device */
  result: "success" | "error" | "blocked";
  error_type: string | null;
  exit_code: number | null;
  elapsed_ms: number | null;
  request_id: string;
  conversation_id: string;
  /** who let an approval-required call run or blocked it: "person", "timeout", "rule:<id>"; null = no approval needed */
  approval: string | null;
  /** why a blocked call was blocked */
  reason?: string;
};

/** Per-tool numbers from this hub's audit rows; merged across devices by the metrics route. */
export type ToolStats = ToolStatsInput;

export type AuditQuery = { tool?: string; since?: number; limit: number };

/** A device call an approval decision blocked, as the conversation reports it. */
export type DenialRecord = {
  request_id: string;
  conversation_id: string;
  tool: string;
  parameters: Record<string, unknown>;
  decided_by: string;
  reason: string;
};

type Row = {
  ts: number;
  agent_id: string;
  tool: string;
  parameters: string;
  result: string;
  error_type: string | null;
  exit_code: number | null;
  elapsed_ms: number | null;
  request_id: string;
  conversation_id: string;
  approval: string | null;
  error: string | null;
};

/**
 * One row per finished tool invocation, in the device's hub; parameters redacted before storing.
 * Rows are keyed by (time, id) in a table without rowids: every query is by time (newest first,
 * since a time, older than the retention), so the key is the time index, and a row is one b-tree
 * write. `id` orders rows of the same millisecond as they were written.
 */
export class AuditLog {
  /** the id the next row gets; read from the newest row on first use */
  private nextId: number | null = null;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS audit (
        ts INTEGER NOT NULL, id INTEGER NOT NULL, agent_id TEXT NOT NULL, tool TEXT NOT NULL,
        parameters TEXT NOT NULL, result TEXT NOT NULL, error_type TEXT, exit_code INTEGER, elapsed_ms REAL,
        request_id TEXT NOT NULL, conversation_id TEXT NOT NULL,
        -- the error text, for "last error" in the tool metrics; who approved or blocked the call
        error TEXT, approval TEXT,
        PRIMARY KEY (ts, id)) WITHOUT ROWID`,
    );
  }

  /** Per-tool metrics (count, success rate, latency), from the audit rows since `since` (newest 5000 per tool for latency). */
  toolStats(since: number): ToolStats[] {
    const rows = this.sql
      .exec<{
        tool: string;
        result: string;
        error_type: string | null;
        elapsed_ms: number | null;
        ts: number;
        error: string | null;
      }>(
        // Blocked calls never ran: they are not the tool's successes or failures.
        // A late result's row (docs/architecture.md#late-results) is not another call.
        "SELECT tool, result, error_type, elapsed_ms, ts, error FROM audit WHERE ts >= ? AND result != 'blocked' AND request_id NOT LIKE '%.late' ORDER BY ts DESC LIMIT 50000",
        since,
      )
      .toArray();
    const byTool = new Map<string, ToolStats>();
    for (const r of rows) {
      let t = byTool.get(r.tool);
      if (!t) {
        t = {
          tool: r.tool,
          total: 0,
          success: 0,
          errors: 0,
          errors_by_type: {},
          timeouts: 0,
          latencies_ms: [],
          last_error: null,
          last_error_at: null,
        };
        byTool.set(r.tool, t);
      }
      t.total += 1;
      if (r.result === "success") t.success += 1;
      else {
        t.errors += 1;
        const type = r.error_type ?? "unknown";
        t.errors_by_type[type] = (t.errors_by_type[type] ?? 0) + 1;
        if (type === "timeout") t.timeouts += 1;
        // Rows come newest first: the first error seen is the last one that happened.
        if (t.last_error_at === null) {
          t.last_error = r.error ?? type;
          t.last_error_at = r.ts;
        }
      }
      if (r.elapsed_ms !== null && t.latencies_ms.length < 5000) t.latencies_ms.push(r.elapsed_ms);
    }
    return [...byTool.values()];
  }

  record(e: {
    ts: number;
    agent_id: string;
    tool: string;
    parameters: Record<string, unknown>;
    outcome: ToolOutcome;
    request_id: string;
    conversation_id: string;
    approval?: string | null;
  }): void {
    const o = e.outcome;
    this.insert({
      ts: e.ts,
      agent_id: e.agent_id,
      tool: e.tool,
      parameters: JSON.stringify(redact(e.parameters)),
      result: o.status,
      error_type: o.status === "error" ? o.error_type : null,
      exit_code: o.exit_code ?? null,
      elapsed_ms: o.elapsed_ms ?? null,
      request_id: e.request_id,
      conversation_id: e.conversation_id,
      error: o.status === "error" ? o.error.slice(0, 500) : null,
      approval: e.approval ?? null,
    });
  }

  /** Whether a row for this request was written in the last day (a denial reported twice after a restart). */
  hasRequest(requestId: string): boolean {
    return (
      this.sql
        .exec("SELECT 1 FROM audit WHERE ts >= ? AND request_id = ? LIMIT 1", Date.now() - 86_400_000, requestId)
        .toArray().length > 0
    );
  }

  /** A call an approval decision blocked: it never reached the device, but the log says who stopped it. */
  recordDenial(e: DenialRecord & { ts: number; agent_id: string }): void {
    this.insert({
      ts: e.ts,
      agent_id: e.agent_id,
      tool: e.tool,
      parameters: JSON.stringify(redact(e.parameters)),
      result: "blocked",
      error_type: null,
      exit_code: null,
      elapsed_ms: null,
      request_id: e.request_id,
      conversation_id: e.conversation_id,
      error: e.reason.slice(0, 500),
      approval: e.decided_by,
    });
  }

  query(q: AuditQuery): AuditEntry[] {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (q.tool) {
      where.push("tool = ?");
      args.push(q.tool);
    }
    if (q.since !== undefined) {
      where.push("ts >= ?");
      args.push(q.since);
    }
    const sql = `SELECT * FROM audit ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY ts DESC, id DESC LIMIT ?`;
    return this.sql
      .exec<Row>(sql, ...args, q.limit)
      .toArray()
      .map(toEntry);
  }

  prune(before: number): number {
    return this.sql.exec("DELETE FROM audit WHERE ts < ?", before).rowsWritten;
  }

  oldest(): number | null {
    return this.sql.exec<{ t: number | null }>("SELECT MIN(ts) AS t FROM audit").one().t ?? null;
  }

  /**
   * Ids only grow, from the newest row's: rows of one millisecond keep the order they were
   * written in. A clock that went back could meet a (ts, id) already taken; the next id is tried.
   */
  private insert(row: Row): void {
    this.nextId ??=
      (this.sql.exec<{ id: number }>("SELECT id FROM audit ORDER BY ts DESC, id DESC LIMIT 1").toArray()[0]?.id ?? 0) +
      1;
    for (;;) {
      const written = this.sql.exec(
        `INSERT INTO audit (ts, id, agent_id, tool, parameters, result, error_type, exit_code, elapsed_ms, request_id, conversation_id, error, approval)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        row.ts,
        this.nextId++,
        row.agent_id,
        row.tool,
        row.parameters,
        row.result,
        row.error_type,
        row.exit_code,
        row.elapsed_ms,
        row.request_id,
        row.conversation_id,
        row.error,
        row.approval,
      ).rowsWritten;
      if (written > 0) return;
    }
  }
}

function toEntry(r: Row): AuditEntry {
  return {
    timestamp: new Date(r.ts).toISOString(),
    agent_id: r.agent_id,
    tool: r.tool,
    parameters: JSON.parse(r.parameters) as Record<string, unknown>,
    result: r.result as AuditEntry["result"],
    error_type: r.error_type,
    exit_code: r.exit_code,
    elapsed_ms: r.elapsed_ms,
    request_id: r.request_id,
    conversation_id: r.conversation_id,
    approval: r.approval ?? null,
    ...(r.result === "blocked" && r.error ? { reason: r.error } : {}),
  };
}
