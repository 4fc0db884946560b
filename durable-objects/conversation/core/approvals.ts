import { recordDenial, ruleFor } from "./approval-rules.js";
import { afterSettle, emitDecided, ruleTargetOf, settle } from "./round.js";
import { approvalKey } from "./run.js";
import type { Effect, LoopEvent, LoopState, RoundCall } from "./types.js";

/**
 * A person's decision on a call waiting for approval, once or remembered as a rule
 * (approval-rules.ts).
 */

/** A person's decision; with a rule, the round's other waiting calls that it matches are decided too. */
export function onApproval(
  state: LoopState,
  effects: Effect[],
  event: Extract<LoopEvent, { type: "approval" }>,
  now: number,
): void {
  const round = state.run?.round;
  const call = round?.find((c) => c.id === event.tool_call_id);
  if (!round || !call || call.state !== "awaiting_approval") return;
  const rule = event.rule;
  if (rule) state.approval_rules = [...(state.approval_rules ?? []).filter((r) => r.rule_id !== rule.rule_id), rule];
  const by = rule ? `rule:${rule.rule_id}` : "person";
  const waited = now - (state.run?.round_started_at ?? now);
  const reason = `Denied by a person${event.reason ? `: ${event.reason}` : ""}`;
  decide(state, effects, call, event.approve, by, reason, waited);
  if (rule) {
    for (const other of round) {
      if (other.state !== "awaiting_approval") continue;
      const target = ruleTargetOf(state, other.name);
      if (!ruleFor([rule], target.agent_id, target.tool, other.args ?? {}, now)) continue;
      decide(state, effects, other, rule.effect === "allow", by, `Denied by approval rule ${rule.rule_id}`, waited);
    }
  }
  afterSettle(state, effects, now);
}

function decide(
  state: LoopState,
  effects: Effect[],
  call: RoundCall,
  approve: boolean,
  by: string,
  reason: string,
  waitedMs: number,
): void {
  effects.push({ type: "clear_deadline", key: approvalKey(call) });
  call.decided_by = by;
  call.approval_wait_ms = waitedMs;
  emitDecided(effects, call, approve, approve ? undefined : reason);
  if (approve) {
    call.state = "queued";
    return;
  }
  settle(state, effects, call, { status: "blocked", tool: call.name, reason });
  recordDenial(effects, call);
}
