import type { ToolOutcome } from "../../protocol/index.js";
import { redact } from "./redact.js";

/** Seed 000 "Audit Logging", plus the ids that tie a row to its conversation and command. */
export type AuditEntry = {
  timestamp: string;
  agent_id: string;
  tool: string;
  parameters: Record<string, unknown>;
  result: "success" | "error";
  error_type: string | null;
  exit_code: number | null;
  elapsed_ms: number | null;
  request_id: string;
  conversation_id: string;
};

export type AuditQuery = { tool?: string; since?: number; limit: number };

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
};

/** One row per finished tool invocation, in the device's hub; parameters redacted before storing. */
export class AuditLog {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS audit (
      id INTEGER PRIMARY KEY AUTOINCREMENT, ts INTEGER NOT NULL, agent_id TEXT NOT NULL, tool TEXT NOT NULL,
      parameters TEXT NOT NULL, result TEXT NOT NULL, error_type TEXT, exit_code INTEGER, elapsed_ms REAL,
      request_id TEXT NOT NULL, conversation_id TEXT NOT NULL)`);
    sql.exec("CREATE INDEX IF NOT EXISTS audit_ts ON audit(ts)");
  }

  record(e: { ts: number; agent_id: string; tool: string; parameters: Record<string, unknown>; outcome: ToolOutcome; request_id: string; conversation_id: string }): void {
    const o = e.outcome;
    this.sql.exec(
      `INSERT INTO audit (ts, agent_id, tool, parameters, result, error_type, exit_code, elapsed_ms, request_id, conversation_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      e.ts,
      e.agent_id,
      e.tool,
      JSON.stringify(redact(e.parameters)),
      o.status,
      o.status === "error" ? o.error_type : null,
      o.exit_code ?? null,
      o.elapsed_ms ?? null,
      e.request_id,
      e.conversation_id,
    );
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
    return this.sql.exec<Row>(sql, ...args, q.limit).toArray().map(toEntry);
  }

  prune(before: number): number {
    return this.sql.exec("DELETE FROM audit WHERE ts < ?", before).rowsWritten;
  }

  oldest(): number | null {
    return this.sql.exec<{ t: number | null }>("SELECT MIN(ts) AS t FROM audit").one().t ?? null;
  }
}

function toEntry(r: Row): AuditEntry {
  return {
    timestamp: new Date(r.ts).toISOString(),
    agent_id: r.agent_id,
    tool: r.tool,
    parameters: JSON.parse(r.parameters) as Record<string, unknown>,
    result: r.result as "success" | "error",
    error_type: r.error_type,
    exit_code: r.exit_code,
    elapsed_ms: r.elapsed_ms,
    request_id: r.request_id,
    conversation_id: r.conversation_id,
  };
}
