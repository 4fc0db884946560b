/** The hub's ledger and audit log in tables without rowids: what a command's round costs in rows. */
import { env, runInDurableObject } from "cloudflare:test";
import type { ToolCommandFrame, ToolOutcome } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { Ledger } from "../../durable-objects/device-hub/ledger/ledger.js";
import { AuditLog } from "../../durable-objects/device-hub/storage/audit-log.js";

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
