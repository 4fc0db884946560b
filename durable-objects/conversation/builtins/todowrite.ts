import { z } from "zod";
import { parseArgs } from "./args.js";
import { doneError, doneJson } from "./outcome.js";
import {
  MAX_TODO_CONTENT,
  MAX_TODOS,
  TODO_KV_KEY,
  type Todo,
  TodoPriority,
  TodoStatus,
  todoItemSchema,
} from "./todo-list.js";
import type { Builtin } from "./types.js";

const NAME = "todowrite";

const Args = z.object({
  todos: z
    .array(
      z.object({
        content: z.string().trim().min(1).max(MAX_TODO_CONTENT),
        status: TodoStatus,
        priority: TodoPriority.optional(),
        id: z.string().min(1).max(64).optional(),
      }),
    )
    .max(MAX_TODOS),
});

/**
 * opencode's todowrite: the list given is the whole list and replaces what was stored, so the
 * model updates a status by writing the list again. Items without an id get the lowest free
 * number, so ids stay stable across rewrites when the model keeps them.
 */
export const todowrite: Builtin = {
  name: NAME,
  description:
    "Write the conversation's todo list. The list you give replaces the stored one entirely: to change one item, send the full list with that item changed. Returns the stored list.",
  parameters: {
    type: "object",
    properties: { todos: { type: "array", items: todoItemSchema, description: "The complete, updated todo list" } },
    required: ["todos"],
  },
  async run(args, ctx) {
    const parsed = parseArgs(NAME, Args, args);
    if (!parsed.ok) return parsed.result;
    const given = parsed.value.todos;
    const ids = given.map((t) => t.id).filter((id): id is string => id !== undefined);
    const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
    if (duplicate !== undefined)
      return doneError(NAME, `invalid arguments: todos: id "${duplicate}" is used twice`, "invalid_params");

    const taken = new Set(ids);
    let next = 1;
    const freshId = () => {
      while (taken.has(String(next))) next++;
      taken.add(String(next));
      return String(next);
    };
    const todos: Todo[] = given.map((t) => ({
      id: t.id ?? freshId(),
      content: t.content,
      status: t.status,
      priority: t.priority ?? "medium",
    }));
    ctx.kv.put(TODO_KV_KEY, todos);
    return doneJson(NAME, todos);
  },
};
