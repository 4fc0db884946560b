import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ResultFrame } from "../../../protocol/index.js";
import { ResultStore } from "../../../device-agent/src/result-store.js";
import { tempDir } from "./helpers.js";

const success = (id: string): ResultFrame => ({ type: "result", request_id: id, status: "success", tool: "echo", result: `out ${id}`, stderr: "", exit_code: 0, elapsed_ms: 5 });

describe("ResultStore", () => {
  it("keeps results across a restart, with their acked state", async () => {
    const dir = tempDir();
    const a = await ResultStore.open({ dir, maxEntries: 100, ttlMs: 60_000 });
    await a.begin("r-1", "echo");
    await a.finish(success("r-1"));
    await a.begin("r-2", "echo");
    await a.finish(success("r-2"));
    await a.ack(["r-1"]);
    const b = await ResultStore.open({ dir, maxEntries: 100, ttlMs: 60_000 });
    expect(b.get("r-1")).toMatchObject({ state: "done", acked: true, result: { result: "out r-1" } });
    expect(b.unacked().map((r) => r.request_id)).toEqual(["r-2"]);
    expect(b.ids().sort()).toEqual(["r-1", "r-2"]);
  });

  it("a tool that was running when the agent died becomes an error result, never a re-run", async () => {
    const dir = tempDir();
    const a = await ResultStore.open({ dir, maxEntries: 100, ttlMs: 60_000 });
    await a.begin("r-crash", "block");
    const b = await ResultStore.open({ dir, maxEntries: 100, ttlMs: 60_000 });
    expect(b.get("r-crash")).toMatchObject({ state: "done", acked: false, result: { status: "error", error_type: "execution_failed", tool: "block" } });
    expect(b.unacked().map((r) => r.request_id)).toEqual(["r-crash"]);
  });

  it("drops expired results and the oldest beyond the bound (acked first)", async () => {
    const dir = tempDir();
    let now = 1_000_000;
    const store = await ResultStore.open({ dir, maxEntries: 3, ttlMs: 10_000, now: () => now });
    for (const id of ["a", "b", "c"]) {
      await store.finish(success(id));
      now += 1;
    }
    await store.ack(["b"]);
    await store.finish(success("d")); // 4 > 3: the acked one goes first
    expect(store.ids().sort()).toEqual(["a", "c", "d"]);
    now += 20_000;
    await store.finish(success("e"));
    expect(store.ids()).toEqual(["e"]);
    expect(readdirSync(dir).sort()).toEqual(["e.json"]);
  });

  it("ignores unreadable records and leftover temp files", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "x.json"), "{not json");
    writeFileSync(join(dir, "y.json.tmp-1-0"), "half a write");
    const store = await ResultStore.open({ dir, maxEntries: 10, ttlMs: 60_000 });
    expect(store.ids()).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });
});
