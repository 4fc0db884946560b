/**
 * The hub's ledger and audit log in tables without rowids: what a command's round costs in rows,
 * and the tables an earlier version made with rowids, rebuilt with their rows when the hub starts.
 */
import { env, runInDurableObject } from "cloudflare:test";
import type { ToolCommandFrame, ToolOutcome } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { AuditLog } from "../../durable-objects/device-hub/audit-log.js";
import { Ledger } from "../../durable-objects/device-hub/ledger.js";

const NOW = 1_700_000_000_000;
const OK: ToolOutcome = { status: "success", tool: "bash", result: "ok", stderr: "", exit_code: 0, elapsed_ms: 1 };

function command(requestId: string) {
  const frame: ToolCommandFrame = {
    type: "command",
    command: "tool",
    request_id: requestId,
    payload: { tool: "bash", parameters: { command: "ls" }, timeout_ms: 1000, request_id: requestId },
  };
  return {
    request_id: requestId,
    conversation_id: "conv-t",
    tool_call_id: `call-${requestId}`,
    tool: "bash",
    frame,
    state: "sent" as const,
    deadline: NOW + 1000,
    created_at: NOW,
  };
}

/** A hub object's SQLite as it was before it made its tables (they are dropped first). */
async function inBareHub(fn: (sql: SqlStorage) => void): Promise<void> {
  const stub = env.DEVICE_HUB.get(env.DEVICE_HUB.idFromName(`tables-${crypto.randomUUID()}`));
  await runInDurableObject(stub, (_o, state) => {
    for (const t of ["ledger", "audit"]) state.storage.sql.exec(`DROP TABLE IF EXISTS ${t}`);
    fn(state.storage.sql);
  });
}

/** Statements run through `sql`, with the rows each read and wrote. */
function counting(real: SqlStorage) {
  const counted: { query: string; read: number; written: number }[] = [];
  const sql = {
    exec: (query: string, ...bindings: unknown[]) => {
      const cursor = real.exec(query, ...bindings);
      const rows = cursor.toArray();
      counted.push({
        query: query.trim().split(/\s+/).slice(0, 3).join(" "),
        read: cursor.rowsRead,
        written: cursor.rowsWritten,
      });
      const written = cursor.rowsWritten;
      return {
        toArray: () => rows,
        one: () => rows[0],
        rowsWritten: written,
        [Symbol.iterator]: () => rows[Symbol.iterator](),
      };
    },
  } as unknown as SqlStorage;
  return { sql, counted };
}

describe("the hub's tables", () => {
  it("record a command and its delivered outcome in one insert and one upsert, reading no row", async () => {
    await inBareHub((real) => {
      const { sql, counted } = counting(real);
      const ledger = new Ledger(sql);
      counted.length = 0;
      ledger.stage(command("r1"));
      ledger.flush();
      // The usual order: the conversation has the result, then the outcome is recorded.
      ledger.markDeliveredLater("r1");
      expect(ledger.complete("r1", OK)).toBe(true);
      expect(counted).toEqual([
        // the row and its entry in the open rows' index
        { query: "INSERT INTO ledger", read: 0, written: 2 },
        { query: "INSERT INTO ledger", read: 0, written: 1 },
      ]);
      expect(ledger.complete("r1", OK)).toBe(false);
      const row = real.exec<{ state: string; delivered: number }>("SELECT state, delivered FROM ledger").one();
      expect(row).toEqual({ state: "done", delivered: 1 });
      expect(new Ledger(real).undelivered()).toEqual([]);

      const audit = new AuditLog(sql);
      audit.record({
        ts: NOW,
        agent_id: "a",
        tool: "bash",
        parameters: {},
        outcome: OK,
        request_id: "r1",
        conversation_id: "c",
      });
      counted.length = 0;
      audit.record({
        ts: NOW,
        agent_id: "a",
        tool: "bash",
        parameters: {},
        outcome: OK,
        request_id: "r2",
        conversation_id: "c",
      });
      expect(counted).toEqual([{ query: "INSERT INTO audit", read: 0, written: 1 }]);
    });
  });

  it("rebuild an earlier ledger with its rows, its open commands still open", async () => {
    await inBareHub((sql) => {
      // As the first release made it: a rowid table, no approval column, three indexes.
      sql.exec(`CREATE TABLE ledger (request_id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, tool_call_id TEXT NOT NULL,
        tool TEXT NOT NULL, frame TEXT NOT NULL, state TEXT NOT NULL, deadline INTEGER NOT NULL, created_at INTEGER NOT NULL,
        outcome TEXT, delivered INTEGER NOT NULL DEFAULT 0)`);
      sql.exec("CREATE INDEX ledger_open ON ledger(state, deadline)");
      sql.exec("CREATE INDEX ledger_pending ON ledger(deadline) WHERE state != 'done'");
      const insert = (id: string, state: string, outcome: string | null) =>
        sql.exec(
          "INSERT INTO ledger VALUES (?, 'conv-t', ?, 'bash', ?, ?, ?, ?, ?, 0)",
          id,
          `call-${id}`,
          JSON.stringify(command(id).frame),
          state,
          NOW + 1000,
          NOW,
          outcome,
        );
      insert("old-open", "sent", null);
      insert("old-done", "done", JSON.stringify(OK));
      const ledger = new Ledger(sql);
      expect(ledger.open().map((r) => r.request_id)).toEqual(["old-open"]);
      expect(ledger.undelivered().map((r) => [r.request_id, r.outcome])).toEqual([["old-done", OK]]);
      expect(ledger.get("old-open")).toMatchObject({ tool_call_id: "call-old-open", approval: null });
      const indexes = sql
        .exec<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ledger' ORDER BY name",
        )
        .toArray()
        .map((r) => r.name);
      expect(indexes).toEqual(["ledger_pending", "ledger_undelivered"]);
      expect(ledger.complete("old-open", OK)).toBe(true);
      expect(ledger.counts()).toEqual({ queued: 0, sent: 0, done: 2 });
    });
  });

  it("rebuild an earlier audit log with its rows in their order, and go on numbering after them", async () => {
    await inBareHub((sql) => {
      // As the first release made it: AUTOINCREMENT ids, a time index, no error or approval column.
      sql.exec(`CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, ts INTEGER NOT NULL, agent_id TEXT NOT NULL,
        tool TEXT NOT NULL, parameters TEXT NOT NULL, result TEXT NOT NULL, error_type TEXT, exit_code INTEGER,
        elapsed_ms REAL, request_id TEXT NOT NULL, conversation_id TEXT NOT NULL)`);
      sql.exec("CREATE INDEX audit_ts ON audit(ts)");
      for (const [ts, id] of [
        [NOW, "a"],
        [NOW, "b"],
        [NOW + 1, "c"],
      ] as const)
        sql.exec(
          "INSERT INTO audit (ts, agent_id, tool, parameters, result, request_id, conversation_id) VALUES (?, 'x', 'bash', '{}', 'success', ?, 'c')",
          ts,
          id,
        );
      const audit = new AuditLog(sql);
      expect(audit.query({ limit: 10 }).map((e) => e.request_id)).toEqual(["c", "b", "a"]);
      // Same millisecond as the newest: written after it, so listed before it.
      audit.record({
        ts: NOW + 1,
        agent_id: "x",
        tool: "bash",
        parameters: {},
        outcome: OK,
        request_id: "d",
        conversation_id: "c",
      });
      expect(audit.query({ limit: 10 }).map((e) => e.request_id)).toEqual(["d", "c", "b", "a"]);
      expect(audit.oldest()).toBe(NOW);
      expect(audit.prune(NOW + 1)).toBe(2);
      expect(audit.query({ limit: 10, since: NOW }).map((e) => e.request_id)).toEqual(["d", "c"]);
    });
  });

  it("write an audit row whose time and id are already taken (a clock that went back) under the next id", async () => {
    await inBareHub((sql) => {
      const first = new AuditLog(sql);
      first.record({
        ts: NOW + 5,
        agent_id: "x",
        tool: "bash",
        parameters: {},
        outcome: OK,
        request_id: "new",
        conversation_id: "c",
      });
      // The clock went back: a row at NOW with the next id (2).
      first.record({
        ts: NOW,
        agent_id: "x",
        tool: "bash",
        parameters: {},
        outcome: OK,
        request_id: "back",
        conversation_id: "c",
      });
      // A restart numbers from the newest row's id (1), meets (NOW, 2), and takes 3.
      const restarted = new AuditLog(sql);
      restarted.record({
        ts: NOW,
        agent_id: "x",
        tool: "bash",
        parameters: {},
        outcome: OK,
        request_id: "again",
        conversation_id: "c",
      });
      expect(restarted.query({ limit: 10 }).map((e) => e.request_id)).toEqual(["new", "again", "back"]);
    });
  });
});
