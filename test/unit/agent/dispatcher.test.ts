import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { silentLogger } from "@edgeloop/edge-client/log";
import type { AcceptedFrame, ProgressFrame, ResultFrame, ToolCommandFrame } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { Dispatcher } from "../../../device-agent/src/dispatcher.js";
import { ResultStore } from "../../../device-agent/src/result-store.js";
import { WorkQueue } from "../../../device-agent/src/work-queue.js";
import { makeExecutor, readLines, tempDir, toolCommand, waitFor } from "./helpers.js";

async function setup(maxConcurrent = 5) {
  const ws = tempDir();
  const sent: (ResultFrame | ProgressFrame | AcceptedFrame)[] = [];
  const store = await ResultStore.open({ dir: join(ws, ".edgeloop/results"), maxEntries: 100, ttlMs: 60_000 });
  const dispatcher = new Dispatcher({
    executor: makeExecutor(ws),
    store,
    queue: new WorkQueue(maxConcurrent),
    send: (f) => sent.push(f),
    log: silentLogger,
  });
  const results = (id?: string) =>
    sent.filter((f): f is ResultFrame => f.type === "result" && (id === undefined || f.request_id === id));
  const command = (id: string, tool: string, parameters: Record<string, unknown>, timeout = 30_000) =>
    dispatcher.onCommand(toolCommand(id, tool, parameters, timeout) as ToolCommandFrame);
  return { ws, sent, store, dispatcher, results, command };
}

describe("Dispatcher", () => {
  it("runs at most max-concurrent tools; the 6th starts only after one finished", async () => {
    const { ws, results, command } = await setup(5);
    const events = join(ws, "events.log");
    for (let i = 1; i <= 6; i++) command(`c-${i}`, "block", { id: String(i) });
    await waitFor(() => readLines(events).length >= 5, "five tools to start");
    // Give a broken limiter every chance to start the sixth.
    await new Promise((r) => setTimeout(r, 500));
    expect(readLines(events).filter((l) => l.startsWith("start")).length).toBe(5);
    expect(readLines(events)).not.toContain("start 6"); // FIFO: the first five started
    writeFileSync(join(ws, "release-3"), "");
    await waitFor(() => readLines(events).includes("start 6"), "the sixth tool to start");
    const lines = readLines(events);
    expect(lines.indexOf("end 3")).toBeLessThan(lines.indexOf("start 6"));
    for (const i of [1, 2, 4, 5, 6]) writeFileSync(join(ws, `release-${i}`), "");
    await waitFor(() => results().length === 6, "six results");
    expect(results().every((r) => r.status === "success")).toBe(true);
  });

  it("a duplicate while running attaches; a duplicate after it finished gets the stored result; it ran once", async () => {
    const { ws, results, command, dispatcher } = await setup();
    command("dup-1", "echo", { text: "x" });
    command("dup-1", "echo", { text: "x" });
    expect(dispatcher.held()).toContain("dup-1");
    await waitFor(() => results("dup-1").length === 1, "the result");
    command("dup-1", "echo", { text: "x" });
    await waitFor(() => results("dup-1").length === 2, "the stored result again");
    expect(results("dup-1")[1]).toEqual(results("dup-1")[0]);
    expect(readLines(join(ws, "runs.log"))).toEqual(["dup-1"]);
  });

  it("cancel of a queued command answers at once without running it", async () => {
    const { ws, results, command, dispatcher } = await setup(1);
    command("q-1", "block", { id: "a" });
    command("q-2", "echo", { text: "never" });
    dispatcher.onCancel("q-2");
    await waitFor(() => results("q-2").length === 1, "the cancelled result");
    expect(results("q-2")[0]).toMatchObject({ status: "error", error_type: "cancelled" });
    writeFileSync(join(ws, "release-a"), "");
    await waitFor(() => results("q-1").length === 1, "q-1");
    expect(readLines(join(ws, "runs.log"))).toEqual([]);
  });

  it("forwards progress as progress frames before the result", async () => {
    const { sent, results, command } = await setup();
    command("pr-1", "progress", {});
    await waitFor(() => results("pr-1").length === 1, "result");
    expect(sent.map((f) => f.type)).toEqual(["accepted", "progress", "progress", "result"]);
    expect(sent[1]).toEqual({ type: "progress", request_id: "pr-1", content: [{ type: "text", text: "50%" }] });
  });

  it("says `accepted` once when it takes a command, before anything else; never for a repeat", async () => {
    const { sent, results, command } = await setup();
    command("ac-1", "echo", { text: "x" });
    command("ac-1", "echo", { text: "x" });
    expect(sent).toEqual([{ type: "accepted", request_id: "ac-1", by: "agent" }]);
    await waitFor(() => results("ac-1").length === 1, "the result");
    command("ac-1", "echo", { text: "x" });
    await waitFor(() => results("ac-1").length === 2, "the stored result again");
    expect(sent.filter((f) => f.type === "accepted")).toHaveLength(1);
  });

  it("unknown tools are answered without waiting for a slot", async () => {
    const { ws, results, command } = await setup(1);
    command("busy", "block", { id: "b" });
    command("nf", "no_such_tool", {});
    await waitFor(() => results("nf").length === 1, "not_found result");
    expect(results("nf")[0]).toMatchObject({ error_type: "not_found" });
    writeFileSync(join(ws, "release-b"), "");
  });

  it("shutdown drops queued work unstarted and stops running work after the grace", async () => {
    const { ws, results, command, dispatcher } = await setup(1);
    command("s-1", "block", { id: "s" });
    command("s-2", "echo", { text: "queued" });
    await waitFor(() => readLines(join(ws, "events.log")).includes("start s"), "s-1 to start");
    await dispatcher.shutdown(200);
    expect(results("s-1")[0]).toMatchObject({
      status: "error",
      error_type: "cancelled",
      error: expect.stringContaining("shutting down"),
    });
    expect(results("s-2")).toEqual([]);
    expect(dispatcher.held()).not.toContain("s-2");
  });
});
