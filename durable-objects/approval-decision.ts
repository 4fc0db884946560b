import type { ApprovalRule, ApprovalRuleMatch } from "@edgeloop/protocol/approval-rules";
import { conversationFor, deploymentOf } from "./addresses.js";
import type { DurableObjectBindings } from "./bindings.js";
import { forgetRules } from "./deployment/in-force.js";

/** A person's decision on one pending call, as the API and a chat button make it. */
export type ApprovalChoice = {
  approve: boolean;
  scope: "once" | "always" | "deny_always";
  reason?: string | undefined;
  pattern?: string | undefined;
  /** when an always/deny_always rule stops applying; null: never */
  expiresAt: number | null;
};

export type ApprovalOutcome =
  | { ok: true; approved: boolean; rule: ApprovalRule | null }
  | { ok: false; status: 404 | 409; detail: string };

/**
 * Apply a decision to a pending call. A scope of `always` or `deny_always` is stored as an
 * approval rule for the call's tool on its device before the decision is applied (so the next
 * call is covered at once), and revoked again if the call was not waiting after all. `ruleOwner`:
 * the scoped principal whose conversations the rule answers for; null for every conversation.
 */
export async function decideApproval(
  env: Pick<DurableObjectBindings, "CONVERSATION" | "DEPLOYMENT">,
  conversationId: string,
  callId: string,
  choice: ApprovalChoice,
  ruleOwner: string | null,
  createdBy = `${conversationId}/${callId}`,
): Promise<ApprovalOutcome> {
  const stub = conversationFor(env, conversationId);
  const missing = {
    ok: false,
    status: 404,
    detail: `no pending call '${callId}' in conversation '${conversationId}'`,
  } as const;
  const approve = choice.scope === "deny_always" ? false : choice.approve;
  let rule: ApprovalRule | null = null;
  if (choice.scope !== "once") {
    const view = await stub.getConversation();
    const call = view?.pending_tool_calls.find((p) => p.id === callId);
    if (!view || !call) return missing;
    rule = await deploymentOf(env).createRule({
      effect: approve ? "allow" : "deny",
      agent_id: call.rule_target ? call.rule_target.agent_id : view.agent_id,
      tool: call.rule_target?.tool ?? call.name,
      pattern: choice.pattern ?? null,
      expires_at: choice.expiresAt,
      reason: choice.reason ?? null,
      created_by: createdBy,
      owner: ruleOwner,
    });
    forgetRules();
  }
  const match: ApprovalRuleMatch | undefined = rule
    ? {
        rule_id: rule.rule_id,
        effect: rule.effect,
        agent_id: rule.agent_id,
        tool: rule.tool,
        pattern: rule.pattern,
        expires_at: rule.expires_at,
      }
    : undefined;
  const res = await stub.approve(callId, approve, choice.reason, match);
  if (rule && !res.applied) {
    await deploymentOf(env).revokeRule(rule.rule_id);
    forgetRules();
  }
  if (!res.found) return missing;
  if (!res.applied) return { ok: false, status: 409, detail: "that call is not waiting for approval" };
  return { ok: true, approved: approve, rule };
}
