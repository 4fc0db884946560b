import type { ToolOutcome, ToolSpec } from "../../../protocol/index.js";
import { parseToolArguments, validateArguments } from "../../../protocol/validate-arguments.js";
import {
  deadlineOutcome,
  invalidParamsOutcome,
  toolMessageText,
  truncateForModel,
  unknownToolOutcome,
} from "./tool-messages.js";
import type {
  Advanced,
  Effect,
  FinishedReply,
  LlmTurn,
  LoopConfig,
  LoopEvent,
  LoopState,
  RoundCall,
  Run,
  StopReason,
} from "./types.js";
import { DEFAULT_LOOP_CONFIG } from "./types.js";

/** Keep the last replies so a late `?wait` can still find its answer. */
const REPLIES_KEPT = 20;

export function initialState(
  conversation_id: string,
  agent_id: string,
  config: Partial<LoopConfig> = {},
): LoopState {
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
  };
}

/**
 * The loop, as a pure state machine: one event in, the next state and the effects to perform out.
 * The shell persists both before performing anything, so every step can be replayed after a
 * restart. Events that no longer match the state (a late result, a repeated LLM answer) change
 * nothing: that is what makes re-delivery safe.
 */
export function advance(prev: LoopState, event: LoopEvent, now: number): Advanced {
  const state: LoopState = structuredClone(prev);
  const effects: Effect[] = [];
  switch (event.type) {
    case "user_message":
      if (state.run) state.queue.push({ message_id: event.message_id, text: event.text, tools: event.tools });
      else startRun(state, effects, event.message_id, event.text, event.tools);
      break;
    case "llm_response":
      if (state.run?.awaiting_llm === event.call_id) onLlmTurn(state, effects, state.run, event.turn, now);
      break;
    case "llm_failed":
      if (state.run?.awaiting_llm === event.call_id) {
        finish(state, effects, "failed", `The model could not be reached: ${event.error}`, "llm_error", now);
      }
      break;
    case "tool_result": {
      const call = state.run?.round?.find((c) => c.id === event.tool_call_id);
      if (call && call.state !== "done" && call.request_id === event.request_id) {
        settleCall(state, effects, call, event.outcome);
        effects.push({ type: "clear_deadline", key: deadlineKey(call) });
        afterSettle(state, effects, now);
      }
      break;
    }
    case "tool_progress": {
      const call = state.run?.round?.find((c) => c.id === event.tool_call_id);
      if (call && call.state === "dispatched") {
        effects.push({
          type: "emit_event",
          event: { type: "tool_execution_update", toolCallId: call.id, toolName: call.name, partial: event.partial },
        });
      }
      break;
    }
    case "deadline": {
      const call = state.run?.round?.find((c) => deadlineKey(c) === event.key);
      if (call && call.state === "dispatched") {
        settleCall(state, effects, call, deadlineOutcome(call.name, call.timeout_ms));
        effects.push({ type: "cancel_tool", request_id: call.request_id });
        afterSettle(state, effects, now);
      }
      break;
    }
    case "cancel":
      if (state.run) {
        for (const call of state.run.round ?? []) {
          if (call.state === "dispatched") effects.push({ type: "cancel_tool", request_id: call.request_id });
          if (call.state !== "done") effects.push({ type: "clear_deadline", key: deadlineKey(call) });
        }
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
  return { state, effects };
}

export function deadlineKey(call: Pick<RoundCall, "request_id">): string {
  return `tool:${call.request_id}`;
}

function startRun(state: LoopState, effects: Effect[], message_id: string, text: string, tools: ToolSpec[]): void {
  if (state.messages.length === 0 && state.config.system_prompt) {
    state.messages.push({ role: "system", content: state.config.system_prompt });
  }
  state.messages.push({ role: "user", content: text });
  state.tools = tools;
  state.status = "running";
  state.run = {
    message_id,
    iteration: 0,
    rounds: 0,
    consecutive_error_rounds: 0,
    awaiting_llm: null,
    round: null,
    stopping: null,
    corrected_once: false,
    tool_calls: [],
    tokens_in: 0,
    tokens_out: 0,
  };
  effects.push({ type: "emit_event", event: { type: "message_start", message_id, text } });
  callLlm(state.run, effects, true);
}

function callLlm(run: Run, effects: Effect[], withTools: boolean): void {
  run.iteration += 1;
  run.awaiting_llm = `${run.message_id}.llm${run.iteration}`;
  effects.push({ type: "call_llm", call_id: run.awaiting_llm, with_tools: withTools });
}

function onLlmTurn(state: LoopState, effects: Effect[], run: Run, turn: LlmTurn, now: number): void {
  run.awaiting_llm = null;
  run.tokens_in += turn.usage?.prompt_tokens ?? 0;
  run.tokens_out += turn.usage?.completion_tokens ?? 0;
  effects.push({
    type: "emit_event",
    event: { type: "message_end", iteration: run.iteration, content: turn.content, tool_calls: turn.toolCalls.length },
  });

  if (turn.malformedToolCall && turn.toolCalls.length === 0) {
    // Seed 004: one correction request, then stop with a clear error.
    if (run.corrected_once) {
      finish(state, effects, "failed", `The model wrote an invalid tool call twice: ${turn.malformedToolCall}`, "invalid_tool_call", now);
      return;
    }
    run.corrected_once = true;
    state.messages.push({ role: "assistant", content: turn.content ?? "" });
    state.messages.push({
      role: "user",
      content: `Your tool call could not be parsed (${turn.malformedToolCall}). Reply again with exactly one valid JSON tool call, or answer in plain text.`,
    });
    callLlm(run, effects, true);
    return;
  }

  if (turn.toolCalls.length === 0 || run.stopping) {
    state.messages.push({ role: "assistant", content: turn.content ?? "" });
    const stop = run.stopping ?? "answer";
    const reply = stop === "answer" ? (turn.content ?? "") : withStopNote(turn.content, stop, state.config);
    finish(state, effects, "completed", reply, stop, now);
    return;
  }

  state.messages.push({
    role: "assistant",
    content: turn.content,
    tool_calls: turn.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })),
  });
  run.round = turn.toolCalls.map((c, index) => prepareCall(state, run, c, index));
  for (const call of run.round) {
    effects.push({
      type: "emit_event",
      event: { type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.args ?? call.raw_arguments },
    });
  }
  for (const call of run.round) {
    if (call.state === "done" && call.outcome) emitEnd(effects, call, call.outcome);
  }
  dispatchQueued(state, effects, now);
  if (run.round.every((c) => c.state === "done")) completeRound(state, effects, now);
}

/** Validate before dispatch (seeds 000, 004): nothing invalid ever reaches a device. */
function prepareCall(
  state: LoopState,
  run: Run,
  call: { id: string; name: string; arguments: string },
  index: number,
): RoundCall {
  const base = {
    id: call.id,
    name: call.name,
    raw_arguments: call.arguments,
    request_id: `${run.message_id}.${run.iteration}.${index}`,
  };
  const spec = state.tools.find((t) => t.name === call.name);
  if (!spec) return settled(base, unknownToolOutcome(call.name, state.tools));
  const parsed = parseToolArguments(call.arguments);
  if (!parsed.ok) return settled(base, invalidParamsOutcome(call.name, `Invalid parameters for '${call.name}': ${parsed.error}`), spec);
  const valid = validateArguments(call.name, spec.parameters, parsed.value);
  if (!valid.ok) return settled(base, invalidParamsOutcome(call.name, valid.error), spec);
  return { ...base, args: valid.value, timeout_ms: effectiveTimeout(spec, valid.value), state: "queued", outcome: null };
}

function settled(base: Omit<RoundCall, "args" | "timeout_ms" | "state" | "outcome">, outcome: ToolOutcome, spec?: ToolSpec): RoundCall {
  return { ...base, args: null, timeout_ms: spec?.timeout_ms ?? 0, state: "done", outcome };
}

/** A model may ask for a longer timeout through `timeout_ms`, up to the tool's max. */
function effectiveTimeout(spec: ToolSpec, args: Record<string, unknown>): number {
  const asked = args["timeout_ms"];
  const wanted = typeof asked === "number" && asked > 0 ? asked : spec.timeout_ms;
  return Math.min(Math.round(wanted), spec.max_timeout_ms);
}

function dispatchQueued(state: LoopState, effects: Effect[], now: number): void {
  const round = state.run?.round;
  if (!round) return;
  let inFlight = round.filter((c) => c.state === "dispatched").length;
  for (const call of round) {
    if (inFlight >= state.config.max_parallel) break;
    if (call.state !== "queued" || !call.args) continue;
    call.state = "dispatched";
    inFlight += 1;
    effects.push({
      type: "dispatch_tool",
      tool_call_id: call.id,
      request_id: call.request_id,
      tool: call.name,
      parameters: call.args,
      timeout_ms: call.timeout_ms,
    });
    effects.push({ type: "set_deadline", key: deadlineKey(call), at: now + call.timeout_ms + state.config.tool_deadline_grace_ms });
  }
}

function settleCall(state: LoopState, effects: Effect[], call: RoundCall, outcome: ToolOutcome): void {
  call.state = "done";
  call.outcome = outcome;
  emitEnd(effects, call, outcome);
}

function emitEnd(effects: Effect[], call: RoundCall, outcome: ToolOutcome): void {
  effects.push({
    type: "emit_event",
    event: { type: "tool_execution_end", toolCallId: call.id, toolName: call.name, result: outcome, isError: outcome.status !== "success" },
  });
}

function afterSettle(state: LoopState, effects: Effect[], now: number): void {
  dispatchQueued(state, effects, now);
  if (state.run?.round?.every((c) => c.state === "done")) completeRound(state, effects, now);
}

/** All results are in: append them in call order, whatever order they finished in. */
function completeRound(state: LoopState, effects: Effect[], now: number): void {
  const run = state.run!;
  const round = run.round!;
  run.round = null;
  run.rounds += 1;
  for (const call of round) {
    const outcome = call.outcome!;
    const text = truncateForModel(toolMessageText(outcome, call.args, state.agent_id), state.config.max_result_chars);
    state.messages.push({ role: "tool", tool_call_id: call.id, content: text });
    run.tool_calls.push({
      id: call.id,
      name: call.name,
      arguments: call.args ?? call.raw_arguments,
      status: outcome.status === "success" ? "success" : "error",
      ...(outcome.status === "error" ? { error_type: outcome.error_type } : {}),
      ...(outcome.elapsed_ms !== undefined ? { elapsed_ms: outcome.elapsed_ms } : {}),
    });
  }
  const allFailed = round.every((c) => c.outcome?.status !== "success");
  run.consecutive_error_rounds = allFailed ? run.consecutive_error_rounds + 1 : 0;

  let stop: StopReason | null = null;
  if (run.consecutive_error_rounds >= state.config.tool_error_limit) stop = "tool_errors";
  else if (run.rounds >= state.config.max_iterations) stop = "max_iterations";
  if (stop) {
    // At a cap the model gets one last call without tools, to tell the user where things stand.
    run.stopping = stop;
    state.messages.push({ role: "user", content: stopInstruction(stop, state.config) });
  }
  callLlm(run, effects, stop === null);
  void now;
}

function stopInstruction(stop: StopReason, config: LoopConfig): string {
  return `[edgeloop] The tool loop has stopped: ${stopText(stop, config)}. No more tools can be called. Summarise for the user what was done, what the results were, and what is left.`;
}

function stopText(stop: StopReason, config: LoopConfig): string {
  switch (stop) {
    case "max_iterations":
      return `it reached the limit of ${config.max_iterations} tool rounds`;
    case "tool_errors":
      return `${config.tool_error_limit} consecutive rounds of tool calls all failed`;
    default:
      return stop;
  }
}

function withStopNote(content: string | null, stop: StopReason, config: LoopConfig): string {
  const note = `(The tool loop stopped because ${stopText(stop, config)}.)`;
  return content ? `${content}\n\n${note}` : note;
}

function finish(
  state: LoopState,
  effects: Effect[],
  status: FinishedReply["status"],
  reply: string | null,
  stop_reason: StopReason,
  now: number,
): void {
  const run = state.run!;
  state.run = null;
  recordReply(state, effects, {
    message_id: run.message_id,
    status,
    reply,
    stop_reason,
    tool_calls: run.tool_calls,
    iterations: run.iteration,
  });
  state.status = status;
  const next = state.queue.shift();
  if (next) startRun(state, effects, next.message_id, next.text, next.tools);
  void now;
}

function recordReply(state: LoopState, effects: Effect[], reply: FinishedReply): void {
  state.replies.push(reply);
  if (state.replies.length > REPLIES_KEPT) state.replies.splice(0, state.replies.length - REPLIES_KEPT);
  effects.push({
    type: "emit_event",
    event: { type: "conversation_end", message_id: reply.message_id, status: reply.status, reply: reply.reply, stop_reason: reply.stop_reason },
  });
  effects.push({ type: "reply", reply });
}
