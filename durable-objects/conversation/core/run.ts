import type { ImageRef, ToolSpec } from "@edgeloop/protocol";
import type { LoopConfig } from "./loop-config.js";
import { redactOutcome } from "./tool-policy.js";
import type { Effect, FinishedReply, LoopState, QueuedMessage, RoundCall, Run, StopReason } from "./types.js";

/**
 * A run is one user message's turn, from its first model call to its reply: starting it, the next
 * model call, the stop at a cap (one last call without tools, so the model can tell the user where
 * things stand), and the reply that ends it and starts the next queued message.
 */

/** Keep the last replies so a late `?wait` can still find its answer. */
const REPLIES_KEPT = 20;

/** Deadline keys of tool calls start with this; other deadlines (approvals, the run budget) do not. */
const CALL_DEADLINE_PREFIX = "tool:";

export function deadlineKey(call: Pick<RoundCall, "request_id">): string {
  return `${CALL_DEADLINE_PREFIX}${call.request_id}`;
}

/** Whether a deadline key is a call's (see deadlineKey). */
export function isCallDeadline(key: string): boolean {
  return key.startsWith(CALL_DEADLINE_PREFIX);
}

export function approvalKey(call: Pick<RoundCall, "request_id">): string {
  return `approval:${call.request_id}`;
}

export function budgetKey(run: Pick<Run, "message_id">): string {
  return `budget:${run.message_id}`;
}

export function startRun(state: LoopState, effects: Effect[], msg: QueuedMessage, now: number): void {
  const { message_id, text, tools, config } = msg;
  // A message without settings spreads none: the conversation's settings are kept as they are.
  state.config = { ...state.config, ...config };
  // The rules in force when the message arrived (kept when the message did not bring any).
  if (msg.approval_rules) state.approval_rules = msg.approval_rules;
  if (state.messages.length === 0 && state.config.system_prompt)
    state.messages.push({ role: "system", content: state.config.system_prompt });
  state.messages.push({ role: "user", content: text, ...(msg.images?.length ? { images: msg.images } : {}) });
  beginRun(state, effects, message_id, text, tools, now, msg.schedule_id, msg.images);
  callLlm(state.run!, effects, true);
}

/** The run's state, its start event and its wall-time budget; shared with direct calls. */
export function beginRun(
  state: LoopState,
  effects: Effect[],
  message_id: string,
  text: string,
  tools: ToolSpec[],
  now: number,
  /** the schedule whose run this message is */
  scheduleId?: string,
  /** the message's images, for the message_start event */
  images?: ImageRef[],
): Run {
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
    compacting: null,
  };
  const schedule = scheduleId ? { schedule_id: scheduleId } : {};
  const pictures = images?.length ? { images } : {};
  effects.push({ type: "emit_event", event: { type: "message_start", message_id, text, ...schedule, ...pictures } });
  if (state.config.max_wall_ms !== null)
    effects.push({ type: "set_deadline", key: budgetKey(state.run), at: now + state.config.max_wall_ms });
  return state.run;
}

/**
 * A direct call's round is complete: its result (already appended as the tool message, redacted
 * and cut for the model) is the reply, and the whole outcome goes with it for the caller.
 */
export function finishDirect(state: LoopState, effects: Effect[], call: RoundCall, now: number): void {
  const last = state.messages[state.messages.length - 1];
  const text = last?.role === "tool" ? last.content : null;
  finish(state, effects, "completed", text, "answer", now, { outcome: redactOutcome(state.config, call.outcome!) });
}

export function callLlm(run: Run, effects: Effect[], withTools: boolean): void {
  run.iteration += 1;
  run.awaiting_llm = `${run.message_id}.llm${run.iteration}`;
  effects.push({ type: "call_llm", call_id: run.awaiting_llm, with_tools: withTools });
}

/** At a cap the model gets one last call without tools, to tell the user where things stand. */
export function stopWith(state: LoopState, effects: Effect[], run: Run, stop: StopReason): void {
  run.stopping = stop;
  state.messages.push({
    role: "user",
    content: `[edgeloop] The tool loop has stopped: ${stopText(stop, state.config)}. No more tools can be called. Summarise for the user what was done, what the results were, and what is left.`,
  });
  callLlm(run, effects, false);
}

export function overBudget(config: LoopConfig, run: Run, now: number): boolean {
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

export function withStopNote(content: string | null, stop: StopReason, config: LoopConfig): string {
  const note = `(The tool loop stopped because ${stopText(stop, config)}.)`;
  return content ? `${content}\n\n${note}` : note;
}

/** Name the tools whose results the answer drew on, so a reader can check them. */
export function withCitations(reply: string, run: Run): string {
  const used = [...new Set(run.tool_calls.filter((c) => c.status === "success").map((c) => c.name))];
  return used.length ? `${reply}\n\nSources: ${used.join(", ")}` : reply;
}

export function finish(
  state: LoopState,
  effects: Effect[],
  status: FinishedReply["status"],
  reply: string | null,
  stop_reason: StopReason,
  now: number,
  extra: Pick<FinishedReply, "outcome"> = {},
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
    ...extra,
  });
  state.status = status;
  const next = state.queue.shift();
  if (next) startRun(state, effects, next, now);
}

export function recordReply(state: LoopState, effects: Effect[], reply: FinishedReply): void {
  state.replies.push(reply);
  // Up to REPLIES_KEPT replies the count is 0 or less, and splice removes nothing.
  state.replies.splice(0, state.replies.length - REPLIES_KEPT);
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
