import type { ApprovalRule, ApprovalRuleMatch } from "@edgeloop/protocol/approval-rules";

/**
 * The rules in force for one device in a conversation of `owner`, in the shape the loop applies:
 * the deployment-wide ones and that owner's own, still in force at `now`. One principal's rules
 * never answer for another's conversations, even on a shared device.
 */
export function rulesFor(
  rules: ApprovalRule[],
  agentId: string,
  owner: string | null,
  now: number,
): ApprovalRuleMatch[] {
  return rules
    .filter(
      (r) =>
        (r.agent_id === null || r.agent_id === agentId) &&
        (r.owner === null || r.owner === owner) &&
        r.revoked_at === null &&
        (r.expires_at === null || r.expires_at > now),
    )
    .map(({ rule_id, effect, agent_id, tool, pattern, expires_at }) => ({
      rule_id,
      effect,
      agent_id,
      tool,
      pattern,
      expires_at,
    }));
}
