import { describe, expect, it } from "vitest";
import type { Todo } from "../../../durable-objects/conversation/builtins/todo-list.js";
import { todoread } from "../../../durable-objects/conversation/builtins/todoread.js";
import { todowrite } from "../../../durable-objects/conversation/builtins/todowrite.js";
import { fakeWorld } from "./fake-context.js";
import { errorOf, successJson } from "./run.js";

describe("todowrite / todoread", () => {
  it("reads an empty list before anything is written", async () => {
    const { ctx } = fakeWorld();
    expect(await successJson(todoread, {}, ctx)).toEqual([]);
  });

  it("stores the list under kv 'todos', assigning ids and a default priority", async () => {
    const world = fakeWorld();
    const written = await successJson<Todo[]>(
      todowrite,
      {
        todos: [
          { content: "write tests", status: "in_progress", priority: "high" },
          { content: "ship", status: "pending" },
        ],
      },
      world.ctx,
    );
    expect(written).toEqual([
      { id: "1", content: "write tests", status: "in_progress", priority: "high" },
      { id: "2", content: "ship", status: "pending", priority: "medium" },
    ]);
    expect(JSON.parse(world.kv.get("todos")!)).toEqual(written);
    expect(await successJson(todoread, {}, world.ctx)).toEqual(written);
  });

  it("replaces the stored list rather than merging (opencode semantics)", async () => {
    const { ctx } = fakeWorld();
    await successJson(
      todowrite,
      {
        todos: [
          { content: "a", status: "pending" },
          { content: "b", status: "pending" },
        ],
      },
      ctx,
    );
    await successJson(todowrite, { todos: [{ id: "2", content: "b", status: "completed" }] }, ctx);
    expect(await successJson(todoread, {}, ctx)).toEqual([
      { id: "2", content: "b", status: "completed", priority: "medium" },
    ]);
  });

  it("keeps given ids and picks free ones for the rest", async () => {
    const { ctx } = fakeWorld();
    const written = await successJson<Todo[]>(
      todowrite,
      {
        todos: [
          { content: "x", status: "pending" },
          { id: "1", content: "y", status: "pending" },
          { content: "z", status: "pending" },
        ],
      },
      ctx,
    );
    expect(written.map((t) => t.id)).toEqual(["2", "1", "3"]);
  });

  it("an empty list clears it", async () => {
    const { ctx } = fakeWorld();
    await successJson(todowrite, { todos: [{ content: "a", status: "pending" }] }, ctx);
    expect(await successJson(todowrite, { todos: [] }, ctx)).toEqual([]);
    expect(await successJson(todoread, {}, ctx)).toEqual([]);
  });

  it("todoread filters by status", async () => {
    const { ctx } = fakeWorld();
    await successJson(
      todowrite,
      {
        todos: [
          { content: "a", status: "completed" },
          { content: "b", status: "pending" },
          { content: "c", status: "completed" },
        ],
      },
      ctx,
    );
    const done = await successJson<Todo[]>(todoread, { status: "completed" }, ctx);
    expect(done.map((t) => t.content)).toEqual(["a", "c"]);
  });

  it("rejects a bad status, duplicate ids and empty content, storing nothing", async () => {
    const world = fakeWorld();
    const badStatus = await errorOf(todowrite, { todos: [{ content: "a", status: "done" }] }, world.ctx);
    expect(badStatus.error_type).toBe("invalid_params");
    expect(badStatus.error).toContain("todos.0.status");
    const dup = await errorOf(
      todowrite,
      {
        todos: [
          { id: "a", content: "x", status: "pending" },
          { id: "a", content: "y", status: "pending" },
        ],
      },
      world.ctx,
    );
    expect(dup.error).toContain('"a"');
    const empty = await errorOf(todowrite, { todos: [{ content: "  ", status: "pending" }] }, world.ctx);
    expect(empty.error).toContain("todos.0.content");
    expect(world.kv.has("todos")).toBe(false);
  });

  it("todoread reports a corrupt stored list instead of dropping it", async () => {
    const world = fakeWorld();
    world.kv.set("todos", JSON.stringify({ not: "a list" }));
    const err = await errorOf(todoread, {}, world.ctx);
    expect(err.error).toContain("unreadable");
  });
});
