import { LATE_RESULT_NOTE } from "@edgeloop/protocol";
import { toolMessageText, truncateForModel } from "./tool-messages.js";
import { redactForPersist, redactOutcome } from "./tool-policy.js";
import type { Effect, LateResult, LoopState } from "./types.js";

/**
 * Late results (docs/architecture.md#late-results): a device's result for a call that had already
 * ended (`not_sent`, `outcome_unknown`, a cancel) is kept, shown in the event stream, and given
 * to the model as a note the next time the loop calls it. A late result for a call this
 * conversation never made, or one already kept, changes nothing.
 */

/** How many late request ids are remembered to recognise a redelivery (the hub keeps each once). */
const REMEMBERED = 200;

/** `stored_tool`: the call's name found in stored history, when memory no longer holds the call. */
export function onLateResult(
  state: LoopState,
  effects: Effect[],
  late: Omit<LateResult, "tool"> & { stored_tool?: string },
): void {
  if (state.late_seen?.includes(late.request_id)) return;
  const { stored_tool, ...result } = late;
  const tool = callName(state, late.tool_call_id) ?? stored_tool ?? null;
  if (tool === null) return;
  state.late_seen = [...(state.late_seen ?? []), late.request_id].slice(-REMEMBERED);
  state.late_results = [...(state.late_results ?? []), { ...result, tool }];
  effects.push({
    type: "emit_event",
    event: {
      type: "tool_late_result",
      toolCallId: late.tool_call_id,
      toolName: tool,
      result: redactOutcome(state.config, late.outcome),
      isError: late.outcome.status !== "success",
    },
  });
}

/** Before a model call: the late results kept since the last one, as one note in the history. */
export function feedLateResults(state: LoopState, effects: Effect[]): void {
  if (!state.late_results?.length || !effects.some((e) => e.type === "call_llm")) return;
  const notes = state.late_results.map((late) => lateResultNote(state, late));
  state.messages.push({ role: "user", content: notes.join("\n\n") });
  state.late_results = [];
}

export function lateResultNote(state: LoopState, late: LateResult): string {
  const text = toolMessageText(late.outcome, null, state.agent_id);
  const body = redactForPersist(state.config, truncateForModel(text, state.config.max_result_chars));
  const what = late.outcome.status === "success" ? "did finish" : "did end, with an error";
  return `${LATE_RESULT_NOTE} the earlier \`${late.tool}\` call (${late.tool_call_id}) ${what} after its outcome was reported to you:\n${body}`;
}

/**
 * The name of a call this conversation made (in the history memory holds or the round under way),
 * else null: the shell looks further back in storage (docs/architecture.md#bounded-memory).
 */
export function callName(state: LoopState, toolCallId: string): string | null {
  const inRound = state.run?.round?.find((c) => c.id === toolCallId);
  if (inRound) return inRound.name;
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const m = state.messages[i]!;
    const call = m.role === "assistant" ? m.tool_calls?.find((c) => c.id === toolCallId) : undefined;
    if (call) return call.function.name;
  }
  return null;
}
