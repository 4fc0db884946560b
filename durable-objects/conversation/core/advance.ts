import { onApproval } from "./approvals.js";
import { beforeModelCall, calibrate, onCompacted, onCompactionFailed } from "./compaction.js";
import { startDirectRun } from "./direct-call.js";
import { feedLateResults, onLateResult } from "./late-results.js";
import { DEFAULT_LOOP_CONFIG, type LoopConfig } from "./loop-config.js";
import { afterSettle, cancelOpenCalls, onDeadline, QUESTION_TOOL, settle, startRound } from "./round.js";
import { callLlm, finish, overBudget, recordReply, startRun, stopWith, withCitations, withStopNote } from "./run.js";
import { toolCallCorrectionRequest } from "./tool-messages.js";
import type { Advanced, Effect, LlmTurn, LoopEvent, LoopState, RoundCall, Run } from "./types.js";

export function initialState(conversation_id: string, agent_id: string, config: Partial<LoopConfig> = {}): LoopState {
  return {
    conversation_id,
    agent_id,
    config: { ...DEFAULT_LOOP_CONFIG, ...config },
    status: "idle",
    messages: [],
    tools: [],
    run: null,
    queue: [],
    replies: [],
    compaction: null,
  };
}

/**
 * The loop, as a pure state machine: one event in, the next state and the effects to perform out.
 * The shell persists both before performing anything, so every step can be replayed after a
 * restart. Events that no longer match the state (a late result, a repeated LLM answer, a second
 * approval) change nothing: that is what makes re-delivery safe.
 */
export function advance(prev: LoopState, event: LoopEvent, now: number): Advanced {
  const state = nextState(prev);
  const effects: Effect[] = [];
  const run = state.run;
  switch (event.type) {
    case "user_message": {
      const { type: _type, ...msg } = event;
      if (run) state.queue.push(msg);
      else startRun(state, effects, msg, now);
      break;
    }
    case "llm_response":
      if (run?.awaiting_llm === event.call_id) onLlmTurn(state, effects, run, event.turn, now);
      break;
    case "llm_failed":
      if (run?.awaiting_llm === event.call_id)
        finish(state, effects, "failed", `The model could not be reached: ${event.error}`, "llm_error", now);
      break;
    case "tool_result": {
      const call = findCall(run, event.tool_call_id);
      if (call && call.state === "dispatched" && call.request_id === event.request_id) {
        settle(state, effects, call, event.outcome);
        afterSettle(state, effects, now);
      }
      break;
    }
    case "late_tool_result": {
      const call = findCall(run, event.tool_call_id);
      // Not ended here yet (the hub's ending was not taken): the result is simply the call's.
      if (call && call.state === "dispatched" && call.request_id === event.request_id) {
        settle(state, effects, call, event.outcome);
        afterSettle(state, effects, now);
      } else {
        const { type: _type, ...late } = event;
        onLateResult(state, effects, late);
      }
      break;
    }
    case "answer": {
      const call = findCall(run, event.tool_call_id);
      if (call && call.kind === "question" && call.state === "dispatched") {
        settle(state, effects, call, {
          status: "success",
          tool: QUESTION_TOOL,
          result: event.text,
          stderr: "",
          exit_code: 0,
          elapsed_ms: 0,
        });
        afterSettle(state, effects, now);
      }
      break;
    }
    case "server_question": {
      // Shown as the loop's own questions are; the answer goes to the server, not into the loop.
      const call = findCall(run, event.tool_call_id);
      // A remote server's (a built-in call) or a device server's (a device call) while it runs.
      if (call && (call.kind === "builtin" || call.kind === "device") && call.state === "dispatched") {
        const { tool_call_id: toolCallId, question, options } = event;
        effects.push({
          type: "emit_event",
          event: { type: "question", toolCallId, question, ...(options.length > 0 ? { options } : {}) },
        });
      }
      break;
    }
    case "approval":
      onApproval(state, effects, event, now);
      break;
    case "compacted":
      onCompacted(state, effects, event, now);
      break;
    case "compaction_failed":
      onCompactionFailed(state, effects, event);
      break;
    case "tool_progress": {
      const call = findCall(run, event.tool_call_id);
      if (call && call.state === "dispatched") {
        effects.push({
          type: "emit_event",
          event: { type: "tool_execution_update", toolCallId: call.id, toolName: call.name, partial: event.partial },
        });
      }
      break;
    }
    case "deadline":
      onDeadline(state, effects, event.key, now);
      break;
    case "tool_call":
      // One direct call per run; a repeat of one already started or finished changes nothing.
      if (!run && !state.replies.some((r) => r.message_id === event.message_id)) {
        if (event.approval_rules) state.approval_rules = event.approval_rules;
        startDirectRun(state, effects, event.message_id, event.call, event.tools, now);
      }
      break;
    case "cancel":
      if (run) {
        cancelOpenCalls(effects, run);
        const dropped = state.queue.splice(0);
        finish(state, effects, "cancelled", `Cancelled${event.reason ? `: ${event.reason}` : ""}.`, "cancel", now);
        for (const q of dropped) {
          recordReply(state, effects, {
            message_id: q.message_id,
            status: "cancelled",
            reply: null,
            stop_reason: "cancel",
            tool_calls: [],
            iterations: 0,
          });
        }
      }
      break;
  }
  feedLateResults(state, effects);
  beforeModelCall(state, effects, event);
  return { state, effects };
}

/**
 * A copy of `prev` that the step may change without touching `prev`: each container the loop
 * mutates is copied one level deep, and everything it only replaces or appends to is shared.
 * A structuredClone of the state was most of a step's CPU once a run had many tool calls.
 */
function nextState(prev: LoopState): LoopState {
  const run = prev.run;
  return {
    ...prev,
    messages: [...prev.messages],
    queue: [...prev.queue],
    replies: [...prev.replies],
    // A round's calls change state in place (dispatched → done); the run's summaries only grow.
    run: run && { ...run, tool_calls: [...run.tool_calls], round: run.round ? run.round.map((c) => ({ ...c })) : null },
  };
}

function findCall(run: Run | null, id: string): RoundCall | undefined {
  return run?.round?.find((c) => c.id === id);
}

function onLlmTurn(state: LoopState, effects: Effect[], run: Run, turn: LlmTurn, now: number): void {
  run.awaiting_llm = null;
  run.tokens_in += turn.usage?.prompt_tokens ?? 0;
  run.tokens_out += turn.usage?.completion_tokens ?? 0;
  calibrate(state, run, turn.usage);
  effects.push({
    type: "emit_event",
    event: { type: "message_end", iteration: run.iteration, content: turn.content, tool_calls: turn.toolCalls.length },
  });

  if (turn.malformedToolCall && turn.toolCalls.length === 0 && !run.stopping) {
    // One correction request, then stop with a clear error rather than loop on bad output.
    if (run.corrected_once) {
      finish(
        state,
        effects,
        "failed",
        `The model wrote an invalid tool call twice: ${turn.malformedToolCall}`,
        "invalid_tool_call",
        now,
      );
      return;
    }
    run.corrected_once = true;
    state.messages.push({ role: "assistant", content: turn.content ?? "" });
    state.messages.push({
      role: "user",
      content: toolCallCorrectionRequest(
        turn.malformedToolCall,
        state.tools.map((t) => t.name),
      ),
    });
    callLlm(run, effects, true);
    return;
  }

  if (turn.toolCalls.length === 0 || run.stopping) {
    state.messages.push({ role: "assistant", content: turn.content ?? "" });
    const stop = run.stopping ?? "answer";
    let reply = stop === "answer" ? (turn.content ?? "") : withStopNote(turn.content, stop, state.config);
    if (state.config.citations) reply = withCitations(reply, run);
    finish(state, effects, "completed", reply, stop, now);
    return;
  }

  if (overBudget(state.config, run, now)) {
    // Spent: do not start the round the model asked for; ask for a summary instead.
    state.messages.push({ role: "assistant", content: turn.content ?? "" });
    stopWith(state, effects, run, "budget");
    return;
  }

  state.messages.push({
    role: "assistant",
    content: turn.content,
    tool_calls: turn.toolCalls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    })),
  });
  startRound(state, effects, run, turn.toolCalls, now);
}
