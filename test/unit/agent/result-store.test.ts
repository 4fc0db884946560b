import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ResultFrame } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { JOURNAL_FILE, ResultStore, type ResultStoreOptions } from "../../../device-agent/src/result-store.js";
import { tempDir } from "./helpers.js";

const success = (id: string): ResultFrame => ({
  type: "result",
  request_id: id,
  status: "success",
  tool: "echo",
  result: `out ${id}`,
  stderr: "",
  exit_code: 0,
  elapsed_ms: 5,
});

const journal = (dir: string) => join(dir, JOURNAL_FILE);
const journalLines = (dir: string): string[] =>
  readFileSync(journal(dir), "utf8")
    .split("\n")
    .filter((l) => l !== "");
const open = (dir: string, over: Partial<ResultStoreOptions> = {}) =>
  ResultStore.open({ dir, maxEntries: 100, ttlMs: 60_000, ...over });

describe("ResultStore", () => {
  it("keeps results across a restart, with their acked state", async () => {
    const dir = tempDir();
    const a = await open(dir);
    a.begin("r-1", "echo");
    a.finish(success("r-1"));
    a.begin("r-2", "echo");
    a.finish(success("r-2"));
    a.ack(["r-1"]);
    const b = await open(dir);
    expect(b.get("r-1")).toMatchObject({ state: "done", acked: true, result: { result: "out r-1" } });
    expect(b.get("r-2")).toMatchObject({ state: "done", acked: false, result: success("r-2") });
    expect(b.unacked().map((r) => r.request_id)).toEqual(["r-2"]);
    expect(b.ids().sort()).toEqual(["r-1", "r-2"]);
  });

  it("finish gives the result's JSON to send, and the journal line holds that same result", async () => {
    const dir = tempDir();
    const a = await open(dir);
    a.begin("r-1", "echo");
    const frame = { ...success("r-1"), result: 'quotes " and \\ and a line\n' };
    const done = a.finish(frame);
    expect(JSON.parse(done.json)).toEqual(frame);
    const line = JSON.parse(journalLines(dir).at(-1)!);
    expect(line).toEqual({
      state: "done",
      request_id: "r-1",
      tool: "echo",
      started_at: done.started_at,
      finished_at: done.finished_at,
      acked: false,
      result: frame,
    });
    expect((await open(dir)).get("r-1")).toMatchObject({ state: "done", result: frame });
  });

  it("a tool that was running when the agent died becomes an error result, never a re-run", async () => {
    const dir = tempDir();
    const a = await open(dir);
    a.begin("r-crash", "block");
    const b = await open(dir);
    expect(b.get("r-crash")).toMatchObject({
      state: "done",
      acked: false,
      result: { status: "error", error_type: "execution_failed", tool: "block" },
    });
    expect(b.unacked().map((r) => r.request_id)).toEqual(["r-crash"]);
    // The same answer on every later start, not a new "interrupted" each time.
    const c = await open(dir);
    expect(c.get("r-crash")).toEqual(b.get("r-crash"));
  });

  it("drops expired results and the oldest beyond the bound (acked first)", async () => {
    const dir = tempDir();
    let now = 1_000_000;
    const store = await open(dir, { maxEntries: 3, ttlMs: 10_000, now: () => now });
    for (const id of ["a", "b", "c"]) {
      store.finish(success(id));
      now += 1;
    }
    store.ack(["b"]);
    store.finish(success("d")); // 4 > 3: the acked one goes first
    expect(store.ids().sort()).toEqual(["a", "c", "d"]);
    now += 20_000;
    store.finish(success("e"));
    expect(store.ids()).toEqual(["e"]);
    expect((await open(dir, { maxEntries: 3, ttlMs: 10_000, now: () => now })).ids()).toEqual(["e"]);
    expect(readdirSync(dir)).toEqual([JOURNAL_FILE]);
  });

  it("never prunes a running record, even over the bound", async () => {
    const dir = tempDir();
    const store = await open(dir, { maxEntries: 1 });
    store.begin("run", "block");
    store.finish(success("a"));
    store.finish(success("b"));
    expect(store.ids().sort()).toEqual(["run"]);
  });

  it("removes the temp file of a compaction the last run did not finish", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, `${JOURNAL_FILE}.tmp-123`), "half a compaction");
    const warnings: string[] = [];
    const store = await open(dir, { onWarning: (msg) => warnings.push(msg) });
    expect(store.ids()).toEqual([]);
    expect(readdirSync(dir)).toEqual([JOURNAL_FILE]);
    expect(warnings).toEqual([]);
  });

  it("skips a torn last line (a crash mid-append) with a warning; the rest loads and later appends are readable", async () => {
    const dir = tempDir();
    const a = await open(dir);
    a.finish(success("r-1"));
    a.finish(success("r-2"));
    const whole = JSON.stringify({
      state: "done",
      request_id: "r-3",
      tool: "echo",
      started_at: 1,
      finished_at: 2,
      acked: false,
      result: success("r-3"),
    });
    appendFileSync(journal(dir), whole.slice(0, 40)); // no newline: the write stopped half-way
    const warnings: { msg: string; fields: Record<string, unknown> }[] = [];
    const b = await open(dir, { onWarning: (msg, fields) => warnings.push({ msg, fields }) });
    expect(b.ids().sort()).toEqual(["r-1", "r-2"]);
    expect(warnings).toMatchObject([
      { msg: "result store: unreadable journal lines skipped", fields: { count: 1, first_line: 3 } },
    ]);
    b.finish(success("r-4")); // must not be glued onto the torn line
    const c = await open(dir, { onWarning: (msg) => warnings.push({ msg, fields: {} }) });
    expect(c.ids().sort()).toEqual(["r-1", "r-2", "r-4"]);
    expect(warnings).toHaveLength(1);
  });

  it("a complete last record cut just before its newline is kept, and the next append starts a new line", async () => {
    const dir = tempDir();
    const a = await open(dir);
    a.finish(success("r-1"));
    appendFileSync(
      journal(dir),
      JSON.stringify({
        state: "done",
        request_id: "r-2",
        tool: "echo",
        started_at: Date.now(),
        finished_at: Date.now(),
        acked: false,
        result: success("r-2"),
      }),
    );
    const b = await open(dir);
    expect(b.get("r-2")).toMatchObject({ state: "done", result: { result: "out r-2" } });
    b.finish(success("r-3"));
    const warnings: string[] = [];
    const c = await open(dir, { onWarning: (msg) => warnings.push(msg) });
    expect(c.ids().sort()).toEqual(["r-1", "r-2", "r-3"]);
    expect(warnings).toEqual([]);
  });

  it("skips a bad line in the middle, keeps the ones after it", async () => {
    const dir = tempDir();
    const a = await open(dir);
    a.finish(success("r-1"));
    appendFileSync(journal(dir), '{"state":"done","request_id":"r-x"}\n');
    appendFileSync(journal(dir), `${JSON.stringify({ state: "acked", request_ids: ["r-1"] })}\n`);
    const b = await open(dir, { onWarning: () => {} });
    expect(b.ids()).toEqual(["r-1"]);
    expect(b.get("r-1")).toMatchObject({ acked: true });
  });

  it("compaction rewrites the journal with exactly the live records, and it shrinks", async () => {
    const dir = tempDir();
    let now = 1_000_000;
    const store = await open(dir, { maxEntries: 5, now: () => now });
    let before: { lines: number; bytes: number } | null = null;
    const step = (op: () => void) => {
      const lines = journalLines(dir).length;
      const bytes = statSync(journal(dir)).size;
      op();
      if (journalLines(dir).length < lines) before = { lines, bytes };
    };
    for (let i = 0; i < 400 && before === null; i++) {
      step(() => store.begin(`r-${i}`, "echo"));
      if (before === null) step(() => store.finish(success(`r-${i}`)));
      if (before === null) step(() => store.ack([`r-${i}`]));
      now += 1;
    }
    expect(before, "a compaction within 400 commands").not.toBeNull();
    expect(before!.lines).toBeGreaterThan(2 * 5);
    expect(statSync(journal(dir)).size).toBeLessThan(before!.bytes);
    const records = journalLines(dir).map((l) => JSON.parse(l));
    expect(records.map((r) => r.request_id).sort()).toEqual(store.ids().sort());
    expect(records).toEqual(store.ids().map((id) => store.get(id)));
    expect(store.ids()).toHaveLength(5);
    // The store goes on appending to the new journal.
    store.finish(success("after"));
    const again = await open(dir, { maxEntries: 5, now: () => now });
    expect(again.ids().sort()).toEqual(store.ids().sort());
    expect(again.get("after")).toMatchObject({ state: "done", acked: false });
  });

  it("finish writes before it returns, without waiting for the fsync, which starts after the caller's turn; flush waits for it (one sync in flight)", async () => {
    const dir = tempDir();
    const pending: (() => void)[] = [];
    const store = await open(dir, { sync: () => new Promise<void>((resolve) => pending.push(resolve)) });
    const turn = () => new Promise((r) => setImmediate(r));
    store.begin("r-1", "echo");
    store.finish(success("r-1"));
    // What a kill right now would leave on disk (the page cache): the result is there.
    expect(journalLines(dir).map((l) => JSON.parse(l))).toContainEqual(
      expect.objectContaining({ state: "done", request_id: "r-1" }),
    );
    // The caller sends the result in this turn; the fsync starts after it.
    expect(pending).toHaveLength(0);
    await turn();
    expect(pending).toHaveLength(1);
    store.finish(success("r-2"));
    store.finish(success("r-3"));
    await turn();
    expect(pending).toHaveLength(1); // the next sync covers both

    let flushed = false;
    const flush = store.flush().then(() => (flushed = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(flushed).toBe(false);
    pending[0]!();
    await new Promise((r) => setTimeout(r, 20));
    expect(pending).toHaveLength(2);
    expect(flushed).toBe(false);
    pending[1]!();
    await flush;
    expect(pending).toHaveLength(2);

    store.ack(["r-1"]); // not synced by itself, but flush (shutdown) does
    expect(pending).toHaveLength(2);
    const last = store.flush();
    expect(pending).toHaveLength(3);
    pending[2]!();
    await last;
  });
});
