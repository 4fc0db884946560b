import type { ToolOutcome, ToolSpec } from "@edgeloop/protocol";
import { parseToolArguments, validateArguments } from "@edgeloop/protocol/validate-arguments";
import { decideByRule, recordDenial } from "./approval-rules.js";
import type { LoopConfig } from "./loop-config.js";
import { approvalKey, budgetKey, callLlm, deadlineKey, finishDirect, overBudget, stopWith } from "./run.js";
import {
  deadlineOutcome,
  invalidParamsOutcome,
  toolMessageImages,
  toolMessageText,
  truncateForModel,
  unknownToolOutcome,
} from "./tool-messages.js";
import { beforeToolCall, policyFor, redactForPersist, redactOutcome } from "./tool-policy.js";
import type { CallOutcome, Effect, LoopState, RoundCall, Run, StopReason } from "./types.js";

/**
 * A round is the tool calls of one model response: each call is prepared (validated, run through
 * the before_tool_call hook and its policy), dispatched up to MAX_PARALLEL at a time, settled by
 * its result, a deadline or a person's decision, and when all are settled the results go to the
 * model in call order, whatever order they finished in.
 */

export const QUESTION_TOOL = "question";

/** Validate before dispatch (a device never sees arguments that do not fit the schema), then the before_tool_call hook and the policy. */
export function prepareCall(
  state: LoopState,
  run: Run,
  call: { id: string; name: string; arguments: string },
  index: number,
  now: number,
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
  // A fleet's tool is held to the deployment's policy for the devices' own name (docs/fleet.md).
  const policyName = spec.fleet?.tool ?? call.name;
  const hook = beforeToolCall(state.config, policyName, valid.value);
  if (hook.action === "block")
    return { ...base, args: valid.value, outcome: { status: "blocked", tool: call.name, reason: hook.reason } };
  const ready: RoundCall = { ...base, args: hook.args, timeout_ms: effectiveTimeout(spec, hook.args), state: "queued" };
  // An approval-required call is first put to the deployment's approval rules.
  return policyFor(state.config, policyName, spec.policy) === "requires_approval"
    ? decideByRule(state, ready, now, ruleTargetOf(state, call.name))
    : ready;
}

/**
 * What approval rules match a call of this conversation by: its device and the device's own tool
 * name. A fleet tool edgeloop routes among several devices has no device yet, so only rules for
 * any device (agent null) answer for it.
 */
export function ruleTargetOf(state: LoopState, callName: string): { agent_id: string | null; tool: string } {
  const fleet = state.tools.find((t) => t.name === callName)?.fleet;
  if (!fleet) return { agent_id: state.agent_id, tool: callName };
  return { agent_id: fleet.agents.length === 1 ? fleet.agents[0]! : null, tool: fleet.tool };
}

/** A model may ask for a longer timeout through `timeout_ms`, up to the tool's max. */
function effectiveTimeout(spec: ToolSpec, args: Record<string, unknown>): number {
  const asked = args.timeout_ms;
  const wanted = typeof asked === "number" && asked > 0 ? asked : spec.timeout_ms;
  return Math.min(Math.round(wanted), spec.max_timeout_ms);
}

/**
 * The round of one response's calls (the model's, or a direct call's one): prepared, announced
 * (start events, approval requests with their deadlines), dispatched; settled at once when every
 * call was refused before dispatch.
 */
export function startRound(
  state: LoopState,
  effects: Effect[],
  run: Run,
  calls: { id: string; name: string; arguments: string }[],
  now: number,
): void {
  run.round = calls.map((c, index) => prepareCall(state, run, c, index, now));
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
    // A rule answered before anyone was asked: clients are told as for any other decision.
    if (call.decided_by?.startsWith("rule:")) {
      call.approval_wait_ms = 0;
      const blocked = call.outcome?.status === "blocked" ? call.outcome.reason : undefined;
      emitDecided(effects, call, call.state !== "done", blocked);
    }
    if (call.state === "done" && call.outcome) {
      emitEnd(effects, call, call.outcome, state.config);
      recordDenial(effects, call);
    }
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

export function dispatchQueued(state: LoopState, effects: Effect[], now: number): void {
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
      const options = Array.isArray(call.args.options)
        ? call.args.options.filter((o): o is string => typeof o === "string")
        : [];
      effects.push({
        type: "emit_event",
        event: { type: "question", toolCallId: call.id, question, ...(options.length > 0 ? { options } : {}) },
      });
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
    effects.push(
      call.kind === "device"
        ? { type: "dispatch_tool", ...payload, ...(call.decided_by ? { approval: call.decided_by } : {}) }
        : { type: "run_builtin", ...payload },
    );
    effects.push({
      type: "set_deadline",
      key: deadlineKey(call),
      at: now + call.timeout_ms + state.config.tool_deadline_grace_ms,
    });
  }
  const run = state.run!;
  run.max_concurrency = Math.max(run.max_concurrency, inFlight);
}

export function onDeadline(state: LoopState, effects: Effect[], key: string, now: number): void {
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
        : deadlineOutcome(call.name, call.timeout_ms, call.kind === "device");
    if (call.kind !== "question") effects.push({ type: "cancel_tool", request_id: call.request_id });
    settle(state, effects, call, outcome, false);
    afterSettle(state, effects, now);
  } else if (call.state === "awaiting_approval" && approvalKey(call) === key) {
    call.decided_by = "timeout";
    call.approval_wait_ms = now - (run.round_started_at ?? now);
    emitDecided(effects, call, false, "Nobody approved the call before its approval deadline");
    settle(
      state,
      effects,
      call,
      { status: "blocked", tool: call.name, reason: "Nobody approved the call before its approval deadline" },
      false,
    );
    recordDenial(effects, call);
    afterSettle(state, effects, now);
  }
}

export function cancelOpenCalls(effects: Effect[], run: Run): void {
  for (const call of run.round ?? []) {
    if (call.state === "dispatched" && call.kind !== "question")
      effects.push({ type: "cancel_tool", request_id: call.request_id });
    if (call.state !== "done") {
      effects.push({ type: "clear_deadline", key: deadlineKey(call) });
      effects.push({ type: "clear_deadline", key: approvalKey(call) });
    }
  }
}

export function settle(
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

/** The approval question of `call` is answered (`decided_by` and `approval_wait_ms` are set). */
export function emitDecided(effects: Effect[], call: RoundCall, approved: boolean, reason?: string): void {
  effects.push({
    type: "emit_event",
    event: {
      type: "approval_decided",
      toolCallId: call.id,
      toolName: call.name,
      approved,
      decided_by: call.decided_by ?? "person",
      ...(reason ? { reason } : {}),
      waited_ms: Math.max(0, call.approval_wait_ms ?? 0),
    },
  });
}

/** Events are stored too, so the persist hook's redaction applies to them as well. */
export function emitEnd(effects: Effect[], call: RoundCall, outcome: CallOutcome, config: LoopConfig): void {
  effects.push({
    type: "emit_event",
    event: {
      type: "tool_execution_end",
      toolCallId: call.id,
      toolName: call.name,
      result: redactOutcome(config, outcome),
      isError: outcome.status !== "success",
    },
  });
}

export function afterSettle(state: LoopState, effects: Effect[], now: number): void {
  dispatchQueued(state, effects, now);
  if (state.run?.round?.every((c) => c.state === "done")) completeRound(state, effects, now);
}

/** All results are in: append them in call order, whatever order they finished in. */
export function completeRound(state: LoopState, effects: Effect[], now: number): void {
  const run = state.run!;
  const round = run.round!;
  run.round = null;
  run.rounds += 1;
  for (const call of round) {
    const outcome = call.outcome!;
    // tool_result_persist: redact before the result is stored or shown to the model again. A refusal
    // is shown as its JSON, so it is redacted as values first (redactOutcome); the rest is prose.
    const content =
      outcome.status === "blocked"
        ? truncateForModel(JSON.stringify(redactOutcome(state.config, outcome)), state.config.max_result_chars)
        : redactForPersist(
            state.config,
            truncateForModel(
              toolMessageText(
                outcome,
                call.args,
                call.kind === "device" ? state.agent_id : null,
                call.decided_by !== undefined,
              ),
              state.config.max_result_chars,
            ),
          );
    const images = toolMessageImages(outcome);
    state.messages.push({ role: "tool", tool_call_id: call.id, content, ...(images.length ? { images } : {}) });
    run.tool_calls.push({
      id: call.id,
      name: call.name,
      arguments: call.args ?? call.raw_arguments,
      status: outcome.status === "success" ? "success" : outcome.status === "blocked" ? "blocked" : "error",
      ...(outcome.status === "error" ? { error_type: outcome.error_type } : {}),
      ...(outcome.status !== "blocked" && outcome.elapsed_ms !== undefined ? { elapsed_ms: outcome.elapsed_ms } : {}),
      ...(call.decided_by ? { decided_by: call.decided_by, approval_wait_ms: call.approval_wait_ms ?? 0 } : {}),
    });
  }
  // Wall time saved by running in parallel = sum of the calls' own times minus the round's wall time.
  const ran = round.filter((c) => c.outcome && c.outcome.status !== "blocked" && c.outcome.elapsed_ms !== undefined);
  if (ran.length > 1) {
    run.parallel_batches += 1;
    const sum = ran.reduce((t, c) => t + ((c.outcome as ToolOutcome).elapsed_ms ?? 0), 0);
    run.wall_saved_ms += Math.max(0, Math.round(sum - (now - (run.round_started_at ?? now))));
  }
  run.round_started_at = null;
  if (run.direct) {
    finishDirect(state, effects, round[0]!, now);
    return;
  }
  const allFailed = round.every((c) => c.outcome?.status !== "success");
  run.consecutive_error_rounds = allFailed ? run.consecutive_error_rounds + 1 : 0;

  let stop: StopReason | null = run.stopping;
  if (!stop && run.consecutive_error_rounds >= state.config.tool_error_limit) stop = "tool_errors";
  else if (!stop && run.rounds >= state.config.max_iterations) stop = "max_iterations";
  else if (!stop && overBudget(state.config, run, now)) stop = "budget";
  if (stop) stopWith(state, effects, run, stop);
  else callLlm(run, effects, true);
}
