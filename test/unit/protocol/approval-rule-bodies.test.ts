/**
 * The approval rules' request bodies as the API reads them (`POST /v1/approval-rules` and a person's
 * decision on a call): each bound, each combination refused with the field it names, and when a rule
 * made from them stops applying.
 */

import { ApprovalDecision, ApprovalRule, ApprovalRuleRequest, ruleExpiry } from "@edgeloop/protocol/approval-rules";
import { describe, expect, it } from "vitest";

type Schema = {
  safeParse: (v: unknown) => { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } };
};
const issues = (schema: Schema, body: unknown) =>
  (schema.safeParse(body).error?.issues ?? []).map((i) => `${i.path.join(".")}: ${i.message}`);
const rule = { effect: "deny", tool: "bash" };
const ok = (extra: Record<string, unknown>) => ApprovalRuleRequest.safeParse({ ...rule, ...extra }).success;
const TEN_YEARS = 10 * 365 * 86_400;

describe("a rule's pattern", () => {
  it("is a regular expression of 1 to 500 characters", () => {
    expect(ok({ pattern: "r" })).toBe(true);
    expect(ok({ pattern: "r".repeat(500) })).toBe(true);
    expect(ok({ pattern: "" })).toBe(false);
    expect(ok({ pattern: "r".repeat(501) })).toBe(false);
  });

  it("is refused, with why, when it does not compile", () => {
    expect(issues(ApprovalRuleRequest, { ...rule, pattern: "rm -rf (" })).toEqual([
      "pattern: not a valid regular expression",
    ]);
    expect(ApprovalRuleRequest.parse({ ...rule, pattern: "rm -rf \\S+" }).pattern).toBe("rm -rf \\S+");
  });
});

describe("a rule's expiry", () => {
  it("is a time in whole unix milliseconds, or an ISO date with its offset", () => {
    expect(ok({ expires_at: 1 })).toBe(true);
    expect(ok({ expires_at: 1_800_000_000_000 })).toBe(true);
    expect(ok({ expires_at: 0 })).toBe(false);
    expect(ok({ expires_at: 1.5 })).toBe(false);
    expect(ok({ expires_at: "2027-01-01T00:00:00Z" })).toBe(true);
    expect(ok({ expires_at: "2027-01-01T00:00:00+02:00" })).toBe(true);
    expect(ok({ expires_at: "2027-01-01" })).toBe(false);
    expect(ok({ expires_at: "next week" })).toBe(false);
  });

  it("or 1 second to 10 years from now, whole", () => {
    expect(ok({ expires_in_seconds: 1 })).toBe(true);
    expect(ok({ expires_in_seconds: TEN_YEARS })).toBe(true);
    expect(ok({ expires_in_seconds: 0 })).toBe(false);
    expect(ok({ expires_in_seconds: TEN_YEARS + 1 })).toBe(false);
    expect(ok({ expires_in_seconds: 1.5 })).toBe(false);
  });

  it("is one of the two, not both", () => {
    expect(issues(ApprovalRuleRequest, { ...rule, expires_at: 1, expires_in_seconds: 1 })).toEqual([
      "expires_at: give expires_at or expires_in_seconds, not both",
    ]);
  });
});

describe("POST /v1/approval-rules", () => {
  it("takes an allow or deny rule for a tool, on one device or all, with a reason", () => {
    for (const effect of ["allow", "deny"]) expect(ok({ effect }), effect).toBe(true);
    expect(ok({ effect: "ask" })).toBe(false);
    const full = { ...rule, agent_id: "pi-1", pattern: "^x", reason: "r".repeat(2000), expires_in_seconds: 60 };
    expect(ApprovalRuleRequest.parse(full)).toEqual(full);
    expect(ok({ reason: "r".repeat(2001) })).toBe(false);
    expect(ok({ agent_id: "a b" })).toBe(false);
    expect(ok({ tool: "no spaces" })).toBe(false);
    expect(ok({ owner: "key:1" })).toBe(false);
  });
});

describe("a person's decision on a call", () => {
  const decide = (body: Record<string, unknown>) => issues(ApprovalDecision, body);

  it("approves or denies this call only, unless it says otherwise", () => {
    expect(ApprovalDecision.parse({ approve: true })).toEqual({ approve: true, scope: "once" });
    expect(ApprovalDecision.parse({ approve: false, reason: "no" })).toEqual({
      approve: false,
      reason: "no",
      scope: "once",
    });
    expect(decide({})).toEqual(["approve: required (true or false)"]);
    expect(decide({ approve: true, scope: "sometimes" }).length).toBe(1);
    expect(decide({ approve: true, reason: "r".repeat(2001) }).length).toBe(1);
    expect(decide({ approve: true, extra: 1 }).length).toBe(1);
  });

  it("remembers a decision with `always`, a denial with `deny_always`", () => {
    expect(decide({ approve: true, scope: "always", pattern: "^ls", expires_in_seconds: 60 })).toEqual([]);
    expect(decide({ approve: false, scope: "always", expires_at: "2027-01-01T00:00:00Z" })).toEqual([]);
    expect(decide({ scope: "always" })).toEqual(["approve: required (true or false)"]);
    expect(decide({ scope: "deny_always" })).toEqual([]);
    expect(decide({ approve: false, scope: "deny_always" })).toEqual([]);
    expect(decide({ approve: true, scope: "deny_always" })).toEqual(["approve: deny_always cannot approve"]);
  });

  it("takes a pattern or an expiry only with a remembered decision", () => {
    const once = ["scope: pattern and expiry need scope always or deny_always"];
    expect(decide({ approve: true, pattern: "^ls" })).toEqual(once);
    expect(decide({ approve: true, expires_at: 1 })).toEqual(once);
    expect(decide({ approve: true, scope: "once", expires_in_seconds: 60 })).toEqual(once);
    expect(decide({ approve: true, scope: "always", pattern: "(" })).toEqual([
      "pattern: not a valid regular expression",
    ]);
  });

  it("gives each refused combination as a custom issue at its field", () => {
    const codes = (body: Record<string, unknown>) =>
      (ApprovalDecision.safeParse(body).error?.issues ?? []).map((i) => `${i.path.join(".")} ${i.code}`);
    expect(codes({ approve: true, scope: "deny_always" })).toEqual(["approve custom"]);
    expect(codes({ scope: "always" })).toEqual(["approve custom"]);
    expect(codes({ approve: true, pattern: "^ls" })).toEqual(["scope custom"]);
    expect(codes({ scope: "deny_always", expires_at: 1, expires_in_seconds: 1 })).toEqual(["expires_at custom"]);
  });

  it("names one expiry, not both", () => {
    expect(decide({ scope: "deny_always", expires_at: 1, expires_in_seconds: 1 })).toEqual([
      "expires_at: give expires_at or expires_in_seconds, not both",
    ]);
  });
});

describe("a stored rule", () => {
  it("is read whole, its nullable fields as null", () => {
    const stored = {
      rule_id: "r1",
      effect: "allow",
      agent_id: null,
      tool: "bash",
      pattern: null,
      expires_at: null,
      created_at: 1,
      created_by: "api",
      reason: null,
      revoked_at: null,
      owner: null,
    };
    expect(ApprovalRule.parse(stored)).toEqual(stored);
    expect(ApprovalRule.parse({ ...stored, effect: "deny" }).effect).toBe("deny");
    expect(ApprovalRule.safeParse({ ...stored, effect: "ask" }).success).toBe(false);
    expect(ApprovalRule.safeParse({ ...stored, owner: undefined }).success).toBe(false);
  });
});

describe("when a rule stops applying", () => {
  const now = 1_700_000_000_000;

  it("is a number of seconds after it was made, a time it names, or never", () => {
    expect(ruleExpiry({ expires_in_seconds: 60 }, now)).toBe(now + 60_000);
    expect(ruleExpiry({ expires_at: now + 5 }, now)).toBe(now + 5);
    expect(ruleExpiry({ expires_at: "2027-01-01T00:00:00+01:00" }, now)).toBe(Date.UTC(2026, 11, 31, 23));
    expect(ruleExpiry({}, now)).toBeNull();
  });

  it("counts seconds from now even when a time is named too", () => {
    expect(ruleExpiry({ expires_in_seconds: 1, expires_at: 5 }, now)).toBe(now + 1000);
  });
});
