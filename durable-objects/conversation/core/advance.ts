import type { ToolOutcome, ToolSpec } from "../../../protocol/index.js";
import { parseToolArguments, validateArguments } from "../../../protocol/validate-arguments.js";
import { toolCallCorrectionRequest } from "../llm/text-protocol-prompts.js";
import { beforeToolCall, policyFor, redactForPersist } from "./hooks.js";
import {
  deadlineOutcome,
  invalidParamsOutcome,
  toolMessageText,
  truncateForModel,
  unknownToolOutcome,
} from "./tool-messages.js";
import type {
  Advanced,
  CallOutcome,
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
export const QUESTION_TOOL = "question";

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
    case "user_message":
      if (run)
        state.queue.push({
          message_id: event.message_id,
          text: event.text,
          tools: event.tools,
          ...(event.config ? { config: event.config } : {}),
        });
      else startRun(state, effects, event.message_id, event.text, event.tools, event.config, now);
      break;
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
    case "approval": {
      const call = findCall(run, event.tool_call_id);
      if (call && call.state === "awaiting_approval") {
        effects.push({ type: "clear_deadline", key: approvalKey(call) });
        if (event.approve) {
          call.state = "queued";
          dispatchQueued(state, effects, now);
        } else {
          settle(state, effects, call, {
            status: "blocked",
            tool: call.name,
            reason: `Denied by a person${event.reason ? `: ${event.reason}` : ""}`,
          });
          afterSettle(state, effects, now);
        }
      }
      break;
    }
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

export function deadlineKey(call: Pick<RoundCall, "request_id">): string {
  return `tool:${call.request_id}`;
}
function approvalKey(call: Pick<RoundCall, "request_id">): string {
  return `approval:${call.request_id}`;
}
function budgetKey(run: Pick<Run, "message_id">): string {
  return `budget:${run.message_id}`;
}

function findCall(run: Run | null, id: string): RoundCall | undefined {
  return run?.round?.find((c) => c.id === id);
}

function startRun(
  state: LoopState,
  effects: Effect[],
  message_id: string,
  text: string,
  tools: ToolSpec[],
  config: Partial<LoopConfig> | undefined,
  now: number,
): void {
  if (config) state.config = { ...state.config, ...config };
  if (state.messages.length === 0 && state.config.system_prompt)
    state.messages.push({ role: "system", content: state.config.system_prompt });
  state.messages.push({ role: "user", content: text });
  state.tools = tools;
  state.status = "running";
  state.run = {
    message_id,
    started_at: now,
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
    parallel_batches: 0,
    max_concurrency: 0,
    wall_saved_ms: 0,
    round_started_at: null,
  };
  effects.push({ type: "emit_event", event: { type: "message_start", message_id, text } });
  if (state.config.max_wall_ms !== null)
    effects.push({ type: "set_deadline", key: budgetKey(state.run), at: now + state.config.max_wall_ms });
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

  if (turn.malformedToolCall && turn.toolCalls.length === 0 && !run.stopping) {
    // Seed 004: one correction request, then stop with a clear error.
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
  run.round = turn.toolCalls.map((c, index) => prepareCall(state, run, c, index));
  run.round_started_at = now;
  for (const call of run.round) {
    effects.push({
      type: "emit_event",
      event: {
        type: "tool_execution_start",
        toolCallId: call.id,
        toolName: call.name,
        args: call.args ?? call.raw_arguments,
      },
    });
  }
  for (const call of run.round) {
    if (call.state === "done" && call.outcome) emitEnd(effects, call, call.outcome, state.config);
    if (call.state === "awaiting_approval") {
      effects.push({
        type: "emit_event",
        event: { type: "approval_required", toolCallId: call.id, toolName: call.name, args: call.args },
      });
      effects.push({ type: "set_deadline", key: approvalKey(call), at: now + state.config.approval_timeout_ms });
    }
  }
  dispatchQueued(state, effects, now);
  if (run.round.every((c) => c.state === "done")) completeRound(state, effects, now);
}

/** Validate before dispatch (seeds 000, 004), then the before_tool_call hook and the policy. */
function prepareCall(
  state: LoopState,
  run: Run,
  call: { id: string; name: string; arguments: string },
  index: number,
): RoundCall {
  const spec = state.tools.find((t) => t.name === call.name);
  const base: RoundCall = {
    id: call.id,
    name: call.name,
    args: null,
    raw_arguments: call.arguments,
    request_id: `${run.message_id}.${run.iteration}.${index}`,
    timeout_ms: spec?.timeout_ms ?? 0,
    kind: call.name === QUESTION_TOOL && spec?.kind === "builtin" ? "question" : (spec?.kind ?? "device"),
    state: "done",
    outcome: null,
  };
  if (!spec) return { ...base, outcome: unknownToolOutcome(call.name, state.tools) };
  const parsed = parseToolArguments(call.arguments);
  if (!parsed.ok)
    return {
      ...base,
      outcome: invalidParamsOutcome(call.name, `Invalid parameters for '${call.name}': ${parsed.error}`),
    };
  const valid = validateArguments(call.name, spec.parameters, parsed.value);
  if (!valid.ok) return { ...base, outcome: invalidParamsOutcome(call.name, valid.error) };
  const hook = beforeToolCall(state.config, call.name, valid.value);
  if (hook.action === "block")
    return { ...base, args: valid.value, outcome: { status: "blocked", tool: call.name, reason: hook.reason } };
  const awaiting = policyFor(state.config, call.name, spec.policy) === "requires_approval";
  return {
    ...base,
    args: hook.args,
    timeout_ms: effectiveTimeout(spec, hook.args),
    state: awaiting ? "awaiting_approval" : "queued",
  };
}

/** A model may ask for a longer timeout through `timeout_ms`, up to the tool's max. */
function effectiveTimeout(spec: ToolSpec, args: Record<string, unknown>): number {
  const asked = args.timeout_ms;
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
    if (call.kind === "question") {
      // The loop waits, durably, for POST /answers: no effect to perform, only the deadline.
      const question = String(call.args.question ?? "");
      effects.push({ type: "emit_event", event: { type: "question", toolCallId: call.id, question } });
      effects.push({ type: "set_deadline", key: deadlineKey(call), at: now + state.config.question_timeout_ms });
      continue;
    }
    const payload = {
      tool_call_id: call.id,
      request_id: call.request_id,
      tool: call.name,
      parameters: call.args,
      timeout_ms: call.timeout_ms,
    };
    effects.push(call.kind === "device" ? { type: "dispatch_tool", ...payload } : { type: "run_builtin", ...payload });
    effects.push({
      type: "set_deadline",
      key: deadlineKey(call),
      at: now + call.timeout_ms + state.config.tool_deadline_grace_ms,
    });
  }
  const run = state.run!;
  run.max_concurrency = Math.max(run.max_concurrency, inFlight);
}

function onDeadline(state: LoopState, effects: Effect[], key: string, now: number): void {
  const run = state.run;
  if (!run) return;
  if (key === budgetKey(run)) {
    // Wall-time budget spent: stop what is running and let the model summarise.
    if (run.round) {
      cancelOpenCalls(effects, run);
      for (const call of run.round) {
        if (call.state !== "done")
          settle(
            state,
            effects,
            call,
            {
              status: "error",
              tool: call.name,
              error: "stopped: the conversation's time budget ran out",
              error_type: "cancelled",
            },
            false,
          );
      }
      run.stopping = "budget";
      completeRound(state, effects, now);
    } else {
      run.stopping = "budget";
    }
    return;
  }
  const call = run.round?.find((c) => deadlineKey(c) === key || approvalKey(c) === key);
  if (!call) return;
  if (call.state === "dispatched" && deadlineKey(call) === key) {
    const outcome: ToolOutcome =
      call.kind === "question"
        ? {
            status: "error",
            tool: call.name,
            error: "No answer from the user before the question's deadline",
            error_type: "timeout",
          }
        : deadlineOutcome(call.name, call.timeout_ms);
    if (call.kind !== "question") effects.push({ type: "cancel_tool", request_id: call.request_id });
    settle(state, effects, call, outcome, false);
    afterSettle(state, effects, now);
  } else if (call.state === "awaiting_approval" && approvalKey(call) === key) {
    settle(
      state,
      effects,
      call,
      { status: "blocked", tool: call.name, reason: "Nobody approved the call before its approval deadline" },
      false,
    );
    afterSettle(state, effects, now);
  }
}

function cancelOpenCalls(effects: Effect[], run: Run): void {
  for (const call of run.round ?? []) {
    if (call.state === "dispatched" && call.kind !== "question")
      effects.push({ type: "cancel_tool", request_id: call.request_id });
    if (call.state !== "done") {
      effects.push({ type: "clear_deadline", key: deadlineKey(call) });
      effects.push({ type: "clear_deadline", key: approvalKey(call) });
    }
  }
}

function settle(
  state: LoopState,
  effects: Effect[],
  call: RoundCall,
  outcome: CallOutcome,
  clearDeadline = true,
): void {
  call.state = "done";
  call.outcome = outcome;
  if (clearDeadline) effects.push({ type: "clear_deadline", key: deadlineKey(call) });
  emitEnd(effects, call, outcome, state.config);
}

/** Events are stored too, so the persist hook's redaction applies to them as well. */
function emitEnd(effects: Effect[], call: RoundCall, outcome: CallOutcome, config: LoopConfig): void {
  let result: unknown = outcome;
  try {
    const json = JSON.stringify(outcome);
    const redacted = redactForPersist(config, json);
    // Parsed back only when something was redacted: a large result is not re-parsed for nothing.
    if (redacted !== json) result = JSON.parse(redacted);
  } catch {
    result = { status: outcome.status, tool: outcome.tool, redacted: true };
  }
  effects.push({
    type: "emit_event",
    event: {
      type: "tool_execution_end",
      toolCallId: call.id,
      toolName: call.name,
      result,
      isError: outcome.status !== "success",
    },
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
    const text =
      outcome.status === "blocked" ? JSON.stringify(outcome) : toolMessageText(outcome, call.args, state.agent_id);
    // tool_result_persist: redact before the result is stored or shown to the model again.
    const content = redactForPersist(state.config, truncateForModel(text, state.config.max_result_chars));
    state.messages.push({ role: "tool", tool_call_id: call.id, content });
    run.tool_calls.push({
      id: call.id,
      name: call.name,
      arguments: call.args ?? call.raw_arguments,
      status: outcome.status === "success" ? "success" : outcome.status === "blocked" ? "blocked" : "error",
      ...(outcome.status === "error" ? { error_type: outcome.error_type } : {}),
      ...(outcome.status !== "blocked" && outcome.elapsed_ms !== undefined ? { elapsed_ms: outcome.elapsed_ms } : {}),
    });
  }
  // Seed 000: wall time saved = sum of the calls' own times minus the round's wall time.
  const ran = round.filter((c) => c.outcome && c.outcome.status !== "blocked" && c.outcome.elapsed_ms !== undefined);
  if (ran.length > 1) {
    run.parallel_batches += 1;
    const sum = ran.reduce((t, c) => t + ((c.outcome as ToolOutcome).elapsed_ms ?? 0), 0);
    run.wall_saved_ms += Math.max(0, Math.round(sum - (now - (run.round_started_at ?? now))));
  }
  run.round_started_at = null;
  const allFailed = round.every((c) => c.outcome?.status !== "success");
  run.consecutive_error_rounds = allFailed ? run.consecutive_error_rounds + 1 : 0;

  let stop: StopReason | null = run.stopping;
  if (!stop && run.consecutive_error_rounds >= state.config.tool_error_limit) stop = "tool_errors";
  else if (!stop && run.rounds >= state.config.max_iterations) stop = "max_iterations";
  else if (!stop && overBudget(state.config, run, now)) stop = "budget";
  if (stop) stopWith(state, effects, run, stop);
  else callLlm(run, effects, true);
}

/** At a cap the model gets one last call without tools, to tell the user where things stand. */
function stopWith(state: LoopState, effects: Effect[], run: Run, stop: StopReason): void {
  run.stopping = stop;
  state.messages.push({
    role: "user",
    content: `[edgeloop] The tool loop has stopped: ${stopText(stop, state.config)}. No more tools can be called. Summarise for the user what was done, what the results were, and what is left.`,
  });
  callLlm(run, effects, false);
}

function overBudget(config: LoopConfig, run: Run, now: number): boolean {
  if (config.max_tokens !== null && run.tokens_in + run.tokens_out >= config.max_tokens) return true;
  return config.max_wall_ms !== null && now - run.started_at >= config.max_wall_ms;
}

function stopText(stop: StopReason, config: LoopConfig): string {
  switch (stop) {
    case "max_iterations":
      return `it reached the limit of ${config.max_iterations} tool rounds`;
    case "tool_errors":
      return `${config.tool_error_limit} consecutive rounds of tool calls all failed`;
    case "budget":
      return `the conversation's budget (${[config.max_tokens !== null ? `${config.max_tokens} tokens` : null, config.max_wall_ms !== null ? `${config.max_wall_ms} ms` : null].filter(Boolean).join(", ")}) ran out`;
    default:
      return stop;
  }
}

function withStopNote(content: string | null, stop: StopReason, config: LoopConfig): string {
  const note = `(The tool loop stopped because ${stopText(stop, config)}.)`;
  return content ? `${content}\n\n${note}` : note;
}

/** Seed 004: name the tools whose results the answer drew on. */
function withCitations(reply: string, run: Run): string {
  const used = [...new Set(run.tool_calls.filter((c) => c.status === "success").map((c) => c.name))];
  return used.length ? `${reply}\n\nSources: ${used.join(", ")}` : reply;
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
  if (state.config.max_wall_ms !== null) effects.push({ type: "clear_deadline", key: budgetKey(run) });
  const metrics = {
    duration_ms: now - run.started_at,
    iterations: run.iteration,
    tool_calls: run.tool_calls.length,
    tool_errors: run.tool_calls.filter((c) => c.status !== "success").length,
    tokens_in: run.tokens_in,
    tokens_out: run.tokens_out,
    parallel_batches: run.parallel_batches,
    max_concurrency: run.max_concurrency,
    wall_saved_ms: run.wall_saved_ms,
  };
  recordReply(state, effects, {
    message_id: run.message_id,
    status,
    reply,
    stop_reason,
    tool_calls: run.tool_calls,
    iterations: run.iteration,
    metrics,
  });
  state.status = status;
  const next = state.queue.shift();
  if (next) startRun(state, effects, next.message_id, next.text, next.tools, next.config, now);
}

function recordReply(state: LoopState, effects: Effect[], reply: FinishedReply): void {
  state.replies.push(reply);
  if (state.replies.length > REPLIES_KEPT) state.replies.splice(0, state.replies.length - REPLIES_KEPT);
  effects.push({
    type: "emit_event",
    event: {
      type: "conversation_end",
      message_id: reply.message_id,
      status: reply.status,
      reply: reply.reply,
      stop_reason: reply.stop_reason,
    },
  });
  effects.push({ type: "reply", reply });
}
