import type { ApprovalRule, ApprovalRuleMatch } from "@edgeloop/protocol/approval-rules";

/**
 * How long an isolate uses the approval rules it read before reading them again: the bound on how
 * late a new or revoked rule reaches conversations in other isolates
 * (docs/architecture.md#approval-rule-bound). The isolate that writes a rule forgets at once.
 */
export const RULES_TRUST_MS = 10_000;

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

/**
 * The isolate's copy of every rule in force, read from the one approval-rules object at most once
 * per RULES_TRUST_MS, so a message whose tools may need approval asks no object shared by the
 * whole deployment (rules are few and small: the copy is all of them).
 */
export class RulesInForce {
  private copy: { rules: ApprovalRule[]; readAt: number } | null = null;
  /** bumped by every `forget`: a read that was in flight across one must not be kept */
  private generation = 0;

  constructor(private readonly trustMs = RULES_TRUST_MS) {}

  async forAgent(
    agentId: string,
    owner: string | null,
    read: () => Promise<ApprovalRule[]>,
    now: () => number = Date.now,
  ): Promise<ApprovalRuleMatch[]> {
    if (!this.copy || now() - this.copy.readAt >= this.trustMs) {
      const generation = this.generation;
      const readAt = now();
      const rules = await read();
      if (generation !== this.generation) return rulesFor(rules, agentId, owner, now());
      this.copy = { rules, readAt };
    }
    return rulesFor(this.copy.rules, agentId, owner, now());
  }

  /** A rule was written or revoked through this isolate: read again from the next message on. */
  forget(): void {
    this.generation++;
    this.copy = null;
  }
}

/** This isolate's copy. */
export const rulesInForce = new RulesInForce();
