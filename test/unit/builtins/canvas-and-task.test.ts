import { describe, expect, it } from "vitest";
import {
  canvas,
  MAX_CANVAS_BYTES,
  parseStoredCanvas,
  renderCanvas,
} from "../../../durable-objects/conversation/builtins/canvas.js";
import { task } from "../../../durable-objects/conversation/builtins/task.js";
import { fakeWorld, NOW } from "./fake-context.js";
import { errorOf, successText } from "./run.js";

describe("canvas", () => {
  it("stores {title, format, content, updated_at} under kv 'canvas' and names the URL", async () => {
    const world = fakeWorld();
    const text = await successText(canvas, { title: "Report", content: "# Hi\n\n| a |" }, world.ctx);
    expect(text).toContain("/v1/conversations/conv-self/canvas");
    expect(text).toContain("Report");
    expect(JSON.parse(world.kv.get("canvas")!)).toEqual({
      title: "Report",
      format: "markdown",
      content: "# Hi\n\n| a |",
      updated_at: new Date(NOW).toISOString(),
    });
  });

  it("replaces the previous canvas", async () => {
    const world = fakeWorld();
    await successText(canvas, { title: "One", content: "1" }, world.ctx);
    await successText(canvas, { title: "Two", content: "<p>2</p>", format: "html" }, world.ctx);
    expect(parseStoredCanvas(JSON.parse(world.kv.get("canvas")!))).toMatchObject({
      title: "Two",
      format: "html",
      content: "<p>2</p>",
    });
  });

  it("refuses content over 256 KiB (counted in UTF-8 bytes) and keeps the old canvas", async () => {
    const world = fakeWorld();
    await successText(canvas, { title: "Keep", content: "ok" }, world.ctx);
    // 'é' is 2 bytes: under the limit in characters, over it in bytes.
    const err = await errorOf(canvas, { title: "Big", content: "é".repeat(MAX_CANVAS_BYTES / 2 + 1) }, world.ctx);
    expect(err.error_type).toBe("invalid_params");
    expect(err.error).toContain("256 KiB");
    expect(JSON.parse(world.kv.get("canvas")!).title).toBe("Keep");
  });

  it("accepts content exactly at the limit", async () => {
    const { ctx } = fakeWorld();
    await successText(canvas, { title: "Edge", content: "a".repeat(MAX_CANVAS_BYTES) }, ctx);
  });

  it("rejects an unknown format", async () => {
    const { ctx } = fakeWorld();
    expect((await errorOf(canvas, { title: "x", content: "y", format: "pdf" }, ctx)).error).toContain("format");
  });

  it("renderCanvas serves markdown as text/markdown and html as text/html", () => {
    const base = { title: "t", content: "body", updated_at: "2025-01-01T00:00:00.000Z" };
    expect(renderCanvas({ ...base, format: "markdown" })).toEqual({
      contentType: "text/markdown; charset=utf-8",
      body: "body",
    });
    expect(renderCanvas({ ...base, format: "html" })).toEqual({
      contentType: "text/html; charset=utf-8",
      body: "body",
    });
  });

  it("parseStoredCanvas refuses what it did not write", () => {
    expect(parseStoredCanvas(null)).toBeNull();
    expect(parseStoredCanvas({ title: "t", format: "pdf", content: "", updated_at: "" })).toBeNull();
  });
});

describe("task", () => {
  it("starts a sub-task on this agent, remembers it and stays pending", async () => {
    const world = fakeWorld();
    const result = await task.run({ prompt: "summarise the logs", description: "log summary" }, world.ctx);
    expect(result).toEqual({ kind: "pending" });
    expect(world.subtasks).toEqual([{ text: "summarise the logs", agent_id: "pi-1" }]);
    expect(world.known).toEqual(["conv-sub-1"]);
  });

  it("can run the sub-task on another agent", async () => {
    const world = fakeWorld();
    await task.run({ prompt: "build", agent_id: "desk-2" }, world.ctx);
    expect(world.subtasks[0]?.agent_id).toBe("desk-2");
  });

  it("can hand the sub-task to a pool, and refuses a device and a pool at once", async () => {
    const world = fakeWorld();
    await task.run({ prompt: "build", pool: "lab" }, world.ctx);
    expect(world.subtasks).toEqual([{ text: "build", agent_id: "pi-1", pool: "lab" }]);
    const both = await task.run({ prompt: "build", pool: "lab", agent_id: "desk-2" }, world.ctx);
    if (both.kind === "done") expect(both.outcome).toMatchObject({ status: "error", error_type: "invalid_params" });
    expect(both.kind).toBe("done");
    expect(world.subtasks).toHaveLength(1);
  });

  it("without a prompt it is an invalid_params error and starts nothing", async () => {
    const world = fakeWorld();
    const result = await task.run({ description: "nothing" }, world.ctx);
    expect(result.kind).toBe("done");
    if (result.kind === "done") expect(result.outcome).toMatchObject({ status: "error", error_type: "invalid_params" });
    expect(world.subtasks).toEqual([]);
  });
});
