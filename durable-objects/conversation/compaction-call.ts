import { TODO_KV_KEY, TodoList } from "./builtins/todo-list.js";
import type { ConversationStore } from "./conversation-store.js";
import { summaryRequest } from "./core/compaction-prompt.js";
import type { Effect, LoopEvent, LoopState } from "./core/index.js";
import type { ModelCalls } from "./model-calls.js";

/**
 * The `compact` effect performed: the dedicated summary call (core/compaction-prompt.ts), through
 * the conversation's own model calls, and the open todos, which the summary message lists word for
 * word. Never throws: a failure is a `compaction_failed` event, after which the held model call
 * goes ahead uncompacted. Used by EffectRunner.
 */
export async function summarize(
  state: LoopState,
  store: ConversationStore,
  modelCalls: ModelCalls,
  effect: Extract<Effect, { type: "compact" }>,
): Promise<LoopEvent> {
  const { call_id } = effect;
  const request = summaryRequest(
    state.messages,
    effect.from,
    effect.upto,
    state.compaction?.summary ?? null,
    effect.context_tokens,
  );
  const call = modelCalls.summarize(call_id, request);
  if (!call) return { type: "compaction_failed", call_id, error: modelCalls.unavailableReason() };
  const result = await call;
  if (!result.ok) return { type: "compaction_failed", call_id, error: result.error.message };
  const summary = result.turn.content ?? "";
  if (!summary.trim()) return { type: "compaction_failed", call_id, error: "the model wrote an empty summary" };
  return { type: "compacted", call_id, summary, open_todos: openTodos(store) };
}

/** The todo list the todowrite built-in keeps, without the finished ones. */
function openTodos(store: ConversationStore): string[] {
  const parsed = TodoList.safeParse(store.getValue(`builtin:${TODO_KV_KEY}`) ?? []);
  if (!parsed.success) return [];
  return parsed.data.filter((t) => t.status !== "completed").map((t) => `[${t.status}] ${t.content}`);
}
