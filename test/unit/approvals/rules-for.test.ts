import type { ApprovalRule } from "@edgeloop/protocol/approval-rules";
import { describe, expect, it } from "vitest";
import { rulesFor } from "../../../durable-objects/deployment/rules-for.js";

const rule = (rule_id: string, over: Partial<ApprovalRule> = {}): ApprovalRule => ({
  rule_id,
  effect: "allow",
  agent_id: "pi-1",
  tool: "bash",
  pattern: null,
  expires_at: null,
  reason: null,
  created_at: 0,
  created_by: "api",
  revoked_at: null,
  owner: null,
  ...over,
});

describe("rulesFor: the rules that answer for one device in one owner's conversation", () => {
  it("takes the device's and the deployment-wide rules, the owner's own and nobody else's, still in force", () => {
    const rules = [
      rule("mine"),
      rule("wide", { agent_id: null }),
      rule("other-device", { agent_id: "pi-2" }),
      rule("key-a", { owner: "key:a" }),
      rule("key-b", { owner: "key:b" }),
      rule("expired", { expires_at: 500 }),
      rule("revoked", { revoked_at: 10 }),
      rule("later", { expires_at: 2_000 }),
    ];
    expect(rulesFor(rules, "pi-1", "key:a", 1_000).map((r) => r.rule_id)).toEqual(["mine", "wide", "key-a", "later"]);
    expect(rulesFor(rules, "pi-1", null, 1_000).map((r) => r.rule_id)).toEqual(["mine", "wide", "later"]);
    expect(rulesFor(rules, "pi-2", null, 2_000).map((r) => r.rule_id)).toEqual(["wide", "other-device"]);
  });

  it("gives the loop only the fields it matches on", () => {
    expect(rulesFor([rule("r", { reason: "ok", created_by: "x" })], "pi-1", null, 0)).toEqual([
      { rule_id: "r", effect: "allow", agent_id: "pi-1", tool: "bash", pattern: null, expires_at: null },
    ]);
  });
});
