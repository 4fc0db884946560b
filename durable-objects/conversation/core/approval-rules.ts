import type { ApprovalRuleMatch } from "@edgeloop/protocol/approval-rules";
import type { LoopConfig } from "./loop-config.js";
import { policyFor, safeRegex } from "./tool-policy.js";
import type { Effect, LoopState, RoundCall } from "./types.js";

/**
 * Approval rules, the deployment's remembered decisions. A call whose policy is
 * `requires_approval` first meets them (a snapshot taken when its message arrived, plus any rule a
 * person made since in this conversation): a `deny` rule blocks it, an `allow` rule lets it run,
 * both without asking; otherwise it waits for a person (approvals.ts). Rules only ever answer the
 * approval question: a call that needs no approval is not affected by them.
 *
 * Every decision is named in `decided_by` ("person", "timeout", "rule:<id>"); a device call's
 * dispatch carries it and a blocked device call is a `record_denial` effect, so the device's
 * audit log says who let each call run or stopped it.
 */

/** The rule that answers for this call, deny rules first; null when a person must decide. */
export function ruleFor(
  rules: readonly ApprovalRuleMatch[] | undefined,
  /** null: a call whose device is not known yet, which only rules for any device answer */
  agentId: string | null,
  tool: string,
  args: Record<string, unknown>,
  now: number,
): ApprovalRuleMatch | null {
  let allow: ApprovalRuleMatch | null = null;
  let json: string | null = null;
  for (const r of rules ?? []) {
    if (r.tool !== tool || (r.agent_id !== null && r.agent_id !== agentId)) continue;
    if (r.expires_at !== null && r.expires_at <= now) continue;
    if (r.pattern !== null) {
      json ??= JSON.stringify(args);
      if (!safeRegex(r.pattern)?.test(json)) continue;
    }
    if (r.effect === "deny") return r;
    allow ??= r;
  }
  return allow;
}

/** Whether any of these tools can ask for approval, so the conversation needs the rules at all. */
export function mayNeedApproval(config: LoopConfig, tools: LoopState["tools"]): boolean {
  return tools.some((t) => policyFor(config, t.fleet?.tool ?? t.name, t.policy) === "requires_approval");
}

/**
 * A call that needs approval, as a rule leaves it: queued, blocked, or still waiting for a person.
 * `target`: the device and tool name rules are matched against (a fleet's call: round.ts).
 */
export function decideByRule(
  state: LoopState,
  call: RoundCall,
  now: number,
  target: { agent_id: string | null; tool: string } = { agent_id: state.agent_id, tool: call.name },
): RoundCall {
  const rule = ruleFor(state.approval_rules, target.agent_id, target.tool, call.args ?? {}, now);
  if (!rule) return { ...call, state: "awaiting_approval" };
  const decided_by = `rule:${rule.rule_id}`;
  if (rule.effect === "allow") return { ...call, state: "queued", decided_by };
  return {
    ...call,
    state: "done",
    decided_by,
    outcome: { status: "blocked", tool: call.name, reason: `Denied by approval rule ${rule.rule_id}` },
  };
}

/** A blocked device call goes to the device's audit log, with who blocked it. */
export function recordDenial(effects: Effect[], call: RoundCall): void {
  if (call.kind !== "device" || !call.decided_by || call.outcome?.status !== "blocked") return;
  effects.push({
    type: "record_denial",
    request_id: call.request_id,
    tool: call.name,
    parameters: call.args ?? {},
    decided_by: call.decided_by,
    reason: call.outcome.reason,
  });
}
