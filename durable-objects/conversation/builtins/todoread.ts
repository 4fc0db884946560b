import { z } from "zod";
import { parseArgs } from "./args.js";
import { doneError, doneJson } from "./outcome.js";
import { readTodos, TodoStatus } from "./todo-list.js";
import type { Builtin } from "./types.js";

const NAME = "todoread";

const Args = z.object({ status: TodoStatus.optional() });

/** Reads the todo list, optionally filtered by status. */
export const todoread: Builtin = {
  name: NAME,
  description: "Read the conversation's todo list, optionally only the items with a given status.",
  parameters: {
    type: "object",
    properties: {
      status: { type: "string", enum: TodoStatus.options, description: "Only items with this status" },
    },
    required: [],
  },
  async run(args, ctx) {
    const parsed = parseArgs(NAME, Args, args);
    if (!parsed.ok) return parsed.result;
    const todos = readTodos(ctx);
    if (todos === null) return doneError(NAME, "the stored todo list is unreadable; write it again with todowrite");
    const { status } = parsed.value;
    return doneJson(NAME, status === undefined ? todos : todos.filter((t) => t.status === status));
  },
};
