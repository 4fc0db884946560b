import type { ApprovalRule } from "@edgeloop/protocol/approval-rules";
import { describe, expect, it } from "vitest";
import { RULES_TRUST_MS, RulesInForce, rulesFor } from "../../../durable-objects/approval-rules/rules-in-force.js";

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

/** The approval-rules object as an isolate sees it: the rules in force now, and how often it was read. */
function rulesObject(rules: ApprovalRule[]) {
  const obj = {
    rules,
    reads: 0,
    read: async () => {
      obj.reads++;
      return obj.rules;
    },
  };
  return obj;
}

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

describe("an isolate's copy of the rules in force", () => {
  it("reads the approval-rules object once per trust period, not once per message", async () => {
    const copy = new RulesInForce();
    const obj = rulesObject([rule("r1")]);
    let now = 1_000;
    for (let i = 0; i < 5; i++) expect(await copy.forAgent("pi-1", null, obj.read, () => now)).toHaveLength(1);
    expect(obj.reads).toBe(1);
    now += RULES_TRUST_MS - 1;
    await copy.forAgent("pi-2", "key:a", obj.read, () => now);
    expect(obj.reads).toBe(1);
    now += 1;
    await copy.forAgent("pi-1", null, obj.read, () => now);
    expect(obj.reads).toBe(2);
  });

  it("sees a rule revoked elsewhere once the trust period is over: the documented bound", async () => {
    const copy = new RulesInForce();
    const obj = rulesObject([rule("r1")]);
    let now = 0;
    await copy.forAgent("pi-1", null, obj.read, () => now);
    obj.rules = [];
    now += RULES_TRUST_MS - 1;
    expect(await copy.forAgent("pi-1", null, obj.read, () => now)).toHaveLength(1);
    now += 1;
    expect(await copy.forAgent("pi-1", null, obj.read, () => now)).toEqual([]);
  });

  it("an expiry passes at its time, not at the next read", async () => {
    const copy = new RulesInForce();
    const obj = rulesObject([rule("r1", { expires_at: 100 })]);
    expect(await copy.forAgent("pi-1", null, obj.read, () => 99)).toHaveLength(1);
    expect(await copy.forAgent("pi-1", null, obj.read, () => 100)).toEqual([]);
    expect(obj.reads).toBe(1);
  });

  it("reads again from the next message after a rule is written through this isolate", async () => {
    const copy = new RulesInForce();
    const obj = rulesObject([]);
    await copy.forAgent("pi-1", null, obj.read, () => 0);
    obj.rules = [rule("new", { effect: "deny" })];
    copy.forget();
    expect((await copy.forAgent("pi-1", null, obj.read, () => 1)).map((r) => r.effect)).toEqual(["deny"]);
    expect(obj.reads).toBe(2);
  });

  it("does not keep a read that was in flight when a rule was written: it may predate the rule", async () => {
    const copy = new RulesInForce();
    const obj = rulesObject([]);
    let release: () => void = () => undefined;
    const slow = async () => {
      await new Promise<void>((r) => {
        release = r;
      });
      return obj.read();
    };
    const pending = copy.forAgent("pi-1", null, slow, () => 0);
    copy.forget();
    release();
    expect(await pending).toEqual([]);
    obj.rules = [rule("new")];
    expect(await copy.forAgent("pi-1", null, obj.read, () => 1)).toHaveLength(1);
    expect(obj.reads).toBe(2);
  });
});
