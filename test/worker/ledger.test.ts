import { env, runInDurableObject } from "cloudflare:test";
import type { ToolCommandFrame } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { Ledger } from "../../durable-objects/device-hub/ledger/ledger.js";

const NOW = 1_700_000_000_000;

function command(requestId: string) {
  const frame: ToolCommandFrame = {
    type: "command",
    command: "tool",
    request_id: requestId,
    payload: { tool: "bash", parameters: { command: "ls" }, timeout_ms: 1000, request_id: requestId },
  };
  return {
    request_id: requestId,
    conversation_id: "conv-l",
    tool_call_id: `call-${requestId}`,
    tool: "bash",
    frame,
    state: "sent" as const,
    deadline: NOW + 1000,
    created_at: NOW,
  };
}

/** A fresh hub object's own SQLite (the object makes the table), with a ledger over it. */
async function withLedger(fn: (ledger: Ledger, sql: SqlStorage) => void): Promise<void> {
  const stub = env.DEVICE_HUB.get(env.DEVICE_HUB.idFromName(`ledger-${crypto.randomUUID()}`));
  await runInDurableObject(stub, (_o, state) => fn(new Ledger(state.storage.sql), state.storage.sql));
}

const rowsInSql = (sql: SqlStorage) =>
  sql.exec<{ request_id: string; state: string }>("SELECT request_id, state FROM ledger ORDER BY request_id").toArray();

describe("Ledger: commands staged while their frames leave", () => {
  it("knows a staged command at once, and writes it only when flushed", async () => {
    await withLedger((ledger, sql) => {
      ledger.stage(command("r1"));
      expect(ledger.get("r1")).toMatchObject({ request_id: "r1", state: "sent", outcome: null, delivered: false });
      expect(rowsInSql(sql)).toEqual([]);
      ledger.flush();
      expect(rowsInSql(sql)).toEqual([{ request_id: "r1", state: "sent" }]);
      expect(ledger.get("r1")).toMatchObject({ request_id: "r1", state: "sent" });
    });
  });

  it("records a result that comes back before the flush (the row is written first)", async () => {
    await withLedger((ledger, sql) => {
      ledger.stage(command("r2"));
      expect(
        ledger.complete("r2", {
          status: "success",
          tool: "bash",
          result: "ok",
          stderr: "",
          exit_code: 0,
          elapsed_ms: 1,
        }),
      ).toBe(true);
      expect(rowsInSql(sql)).toEqual([{ request_id: "r2", state: "done" }]);
      ledger.flush();
      expect(ledger.get("r2")).toMatchObject({ state: "done", outcome: { result: "ok" } });
    });
  });

  it("counts staged commands as open (deadlines, re-sends on hello, the device view)", async () => {
    await withLedger((ledger) => {
      ledger.stage(command("r3"));
      expect(ledger.nextDeadline()).toBe(NOW + 1000);
      ledger.stage(command("r4"));
      expect(ledger.open().map((r) => r.request_id)).toEqual(["r3", "r4"]);
      ledger.stage(command("r5"));
      expect(ledger.counts()).toEqual({ queued: 0, sent: 3, accepted: 0, done: 0 });
      expect(
        ledger
          .expired(NOW + 1000)
          .map((r) => r.request_id)
          .sort(),
      ).toEqual(["r3", "r4", "r5"]);
    });
  });

  it("stays idempotent: a command staged again after its row exists changes nothing", async () => {
    await withLedger((ledger, sql) => {
      ledger.stage(command("r6"));
      ledger.complete("r6", {
        status: "success",
        tool: "bash",
        result: "first",
        stderr: "",
        exit_code: 0,
        elapsed_ms: 1,
      });
      ledger.stage(command("r6"));
      ledger.flush();
      expect(rowsInSql(sql)).toEqual([{ request_id: "r6", state: "done" }]);
      expect(ledger.get("r6")).toMatchObject({ state: "done", outcome: { result: "first" } });
    });
  });

  it("answers lookups of open rows from memory, and keeps them current through sent and done", async () => {
    const stub = env.DEVICE_HUB.get(env.DEVICE_HUB.idFromName(`ledger-${crypto.randomUUID()}`));
    await runInDurableObject(stub, (_o, state) => {
      const real = state.storage.sql;
      const queries: string[] = [];
      const counting = {
        exec: (query: string, ...bindings: unknown[]) => {
          queries.push(query);
          return real.exec(query, ...bindings);
        },
      } as unknown as SqlStorage;
      const ledger = new Ledger(counting);
      ledger.stage({ ...command("m1"), state: "queued" });
      ledger.flush();
      queries.length = 0;
      expect(ledger.get("m1")).toMatchObject({ state: "queued" });
      ledger.markSent("m1");
      expect(ledger.get("m1")).toMatchObject({ state: "sent", outcome: null });
      expect(queries.filter((q) => q.startsWith("SELECT"))).toEqual([]);
      ledger.complete("m1", { status: "success", tool: "bash", result: "ok", stderr: "", exit_code: 0, elapsed_ms: 1 });
      // Done rows come from SQLite again, with their outcome.
      expect(ledger.get("m1")).toMatchObject({ state: "done", outcome: { result: "ok" } });
      expect(rowsInSql(real)).toEqual([{ request_id: "m1", state: "done" }]);

      // A ledger made after a restart reads an open row once, then keeps it.
      ledger.stage(command("m2"));
      ledger.flush();
      const restarted = new Ledger(counting);
      queries.length = 0;
      expect(restarted.get("m2")).toMatchObject({ state: "sent" });
      expect(restarted.get("m2")).toMatchObject({ state: "sent" });
      expect(queries.filter((q) => q.startsWith("SELECT"))).toHaveLength(1);
      restarted.complete("m2", { status: "error", tool: "bash", error: "late", error_type: "timeout" });
      expect(restarted.get("m2")).toMatchObject({ state: "done", outcome: { error: "late" } });
    });
  });
});
