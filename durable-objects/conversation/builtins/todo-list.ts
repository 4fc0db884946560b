import type { ParameterSchema } from "@edgeloop/protocol";
import { z } from "zod";
import type { BuiltinContext } from "./types.js";

/** The conversation's todo list as todowrite stores it and todoread returns it (opencode's shape). */

export const TODO_KV_KEY = "todos";
/** Bounds on what a model can make the conversation store; a plan longer than this is not a plan. */
export const MAX_TODOS = 200;
export const MAX_TODO_CONTENT = 2000;

export const TodoStatus = z.enum(["pending", "in_progress", "completed"]);
export const TodoPriority = z.enum(["high", "medium", "low"]);

export const Todo = z.object({
  id: z.string().min(1).max(64),
  content: z.string().min(1).max(MAX_TODO_CONTENT),
  status: TodoStatus,
  priority: TodoPriority,
});
export type Todo = z.infer<typeof Todo>;

export const TodoList = z.array(Todo);

/** The stored list; null when what is stored is not a list we wrote (reported, never silently dropped). */
export function readTodos(ctx: BuiltinContext): Todo[] | null {
  const stored = ctx.kv.get<unknown>(TODO_KV_KEY);
  if (stored === null) return [];
  const parsed = TodoList.safeParse(stored);
  return parsed.success ? parsed.data : null;
}

/** JSON-schema view of one todo, shared by todowrite's parameters. */
export const todoItemSchema: ParameterSchema = {
  type: "object",
  properties: {
    content: { type: "string", description: "What to do" },
    status: { type: "string", enum: TodoStatus.options, description: "pending, in_progress or completed" },
    priority: { type: "string", enum: TodoPriority.options, description: "high, medium (default) or low" },
    id: { type: "string", description: "Stable id; assigned when omitted" },
  },
  required: ["content", "status"],
};
