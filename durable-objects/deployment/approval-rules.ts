import type { ApprovalRule } from "@edgeloop/protocol/approval-rules";

/** A rule as the API or a person's decision asks for it; the object gives it its id and time. */
export type NewApprovalRule = Pick<
  ApprovalRule,
  "effect" | "agent_id" | "tool" | "pattern" | "expires_at" | "reason"
> & {
  created_by: string;
  /** the scoped principal that made it (it applies to that principal's conversations only); null: deployment-wide */
  owner: string | null;
};

/** `owner`: only the rules that principal made (a scoped principal's view). */
export type RuleQuery = { agent_id?: string; tool?: string; include_inactive?: boolean; owner?: string };

/** Revoked and expired rules stay listed this long (what was allowed, and when), then go. */
const KEEP_INACTIVE_MS = 90 * 86_400_000;

type Row = {
  rule_id: string;
  effect: string;
  agent_id: string | null;
  tool: string;
  pattern: string | null;
  expires_at: number | null;
  created_at: number;
  created_by: string;
  reason: string | null;
  revoked_at: number | null;
  owner: string | null;
};

/**
 * The deployment's approval rules, in the deployment object's SQLite: remembered decisions that
 * answer an approval-required call without asking. Written by `POST /v1/approval-rules` and by
 * decisions with scope `always`/`deny_always`; read by every conversation whose tools may need
 * approval, through each isolate's trusted copy of the rules in force (`inForce`; in-force.ts,
 * docs/architecture.md#trusted-copies), not per message. Rules are few and small, so one store
 * holds them all.
 */
export class ApprovalRuleStore {
  constructor(private readonly sql: SqlStorage) {
    this.sql.exec(`CREATE TABLE IF NOT EXISTS rules (
      rule_id TEXT PRIMARY KEY, effect TEXT NOT NULL, agent_id TEXT, tool TEXT NOT NULL, pattern TEXT,
      expires_at INTEGER, created_at INTEGER NOT NULL, created_by TEXT NOT NULL, reason TEXT, revoked_at INTEGER, owner TEXT)`);
    this.sql.exec("CREATE INDEX IF NOT EXISTS rules_agent ON rules(agent_id)");
  }

  create(input: NewApprovalRule): ApprovalRule {
    const now = Date.now();
    this.sql.exec(
      "DELETE FROM rules WHERE COALESCE(revoked_at, expires_at, ?) < ?",
      now + KEEP_INACTIVE_MS,
      now - KEEP_INACTIVE_MS,
    );
    const rule: ApprovalRule = {
      rule_id: `rule_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`,
      ...input,
      created_at: now,
      revoked_at: null,
    };
    this.sql.exec(
      `INSERT INTO rules (rule_id, effect, agent_id, tool, pattern, expires_at, created_at, created_by, reason, revoked_at, owner)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)`,
      rule.rule_id,
      rule.effect,
      rule.agent_id,
      rule.tool,
      rule.pattern,
      rule.expires_at,
      rule.created_at,
      rule.created_by,
      rule.reason,
      rule.owner,
    );
    return rule;
  }

  /** Newest first; without `include_inactive`, only rules that still apply. */
  list(q: RuleQuery = {}): ApprovalRule[] {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (q.agent_id) {
      where.push("(agent_id = ? OR agent_id IS NULL)");
      args.push(q.agent_id);
    }
    if (q.tool) {
      where.push("tool = ?");
      args.push(q.tool);
    }
    if (q.owner !== undefined) {
      where.push("owner = ?");
      args.push(q.owner);
    }
    if (!q.include_inactive) {
      where.push("revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)");
      args.push(Date.now());
    }
    const sql = `SELECT * FROM rules ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at DESC LIMIT 1000`;
    return this.sql
      .exec<Row>(sql, ...args)
      .toArray()
      .map(toRule);
  }

  get(ruleId: string): ApprovalRule | null {
    const row = this.sql.exec<Row>("SELECT * FROM rules WHERE rule_id = ?", ruleId).toArray()[0];
    return row ? toRule(row) : null;
  }

  /** Revoked rules stop applying from each conversation's next message; they stay listed as revoked. */
  revoke(ruleId: string): { found: boolean; revoked: boolean } {
    const found = this.sql.exec("SELECT 1 FROM rules WHERE rule_id = ?", ruleId).toArray().length > 0;
    const cursor = this.sql.exec(
      "UPDATE rules SET revoked_at = ? WHERE rule_id = ? AND revoked_at IS NULL",
      Date.now(),
      ruleId,
    );
    return { found, revoked: cursor.rowsWritten > 0 };
  }

  /** Every rule in force now, for the isolates' copies (in-force.ts): no limit, they are all needed. */
  inForce(): ApprovalRule[] {
    return this.sql
      .exec<Row>("SELECT * FROM rules WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)", Date.now())
      .toArray()
      .map(toRule);
  }
}

function toRule(r: Row): ApprovalRule {
  return { ...r, effect: r.effect === "deny" ? "deny" : "allow" };
}
