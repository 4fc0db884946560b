/**
 * The bound on the isolates' trusted copies of keys and approval rules
 * (docs/architecture.md#trusted-copies), through the real routes and the real deployment object. A
 * change made straight at the object stands for one made through another isolate: this isolate's
 * copy is not told, so it must see the change within the bound and not before. (The chat grants'
 * copy is tested the same way in channels/chat-grants-cache.test.ts.)
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { deploymentOf } from "../../durable-objects/addresses.js";
import { DeploymentDO } from "../../durable-objects/deployment/deployment-do.js";
import { forgetRules, rulesInForceFor } from "../../durable-objects/deployment/in-force.js";
import { TRUST_MS } from "../../durable-objects/deployment/trusted-copy.js";
import { call, knownAgent } from "./support/front-door.js";
import { issueKey } from "./support/keys.js";

describe("the isolates' trusted copies", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it("check a key once per bound, and refuse it within the bound once revoked elsewhere", async () => {
    const agent = await knownAgent("tc-dev");
    const key = await issueKey({ name: "tc", agents: [agent] });
    const checks = vi.spyOn(DeploymentDO.prototype, "verifyKey");
    vi.useFakeTimers({ toFake: ["Date"] });
    for (let i = 0; i < 5; i++) expect((await call("/v1/conversations", { headers: key.headers })).status).toBe(200);
    expect(checks).toHaveBeenCalledTimes(1);

    expect(await deploymentOf(env).revokeKey(key.key_id)).toEqual({ found: true, revoked: true });
    vi.setSystemTime(Date.now() + TRUST_MS - 1_000);
    expect((await call("/v1/conversations", { headers: key.headers })).status).toBe(200);
    vi.setSystemTime(Date.now() + 1_000);
    expect((await call("/v1/conversations", { headers: key.headers })).status).toBe(401);
    expect(checks).toHaveBeenCalledTimes(2);
  });

  it("read the rules once per bound, and see a rule made elsewhere within the bound", async () => {
    const agent = await knownAgent("tc-rules");
    forgetRules();
    const reads = vi.spyOn(DeploymentDO.prototype, "rulesInForce");
    vi.useFakeTimers({ toFake: ["Date"] });
    for (let i = 0; i < 5; i++) expect(await rulesInForceFor(env, agent, null)).toEqual([]);
    expect(reads).toHaveBeenCalledTimes(1);

    const rule = await deploymentOf(env).createRule({
      effect: "allow",
      agent_id: agent,
      tool: "bash",
      pattern: null,
      expires_at: null,
      reason: null,
      created_by: "test",
      owner: null,
    });
    vi.setSystemTime(Date.now() + TRUST_MS - 1_000);
    expect(await rulesInForceFor(env, agent, null)).toEqual([]);
    vi.setSystemTime(Date.now() + 1_000);
    expect((await rulesInForceFor(env, agent, null)).map((r) => r.rule_id)).toEqual([rule.rule_id]);
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it("drop this isolate's copy at once when a rule is revoked through its route", async () => {
    const agent = await knownAgent("tc-revoke");
    const rule = await deploymentOf(env).createRule({
      effect: "deny",
      agent_id: agent,
      tool: "bash",
      pattern: null,
      expires_at: null,
      reason: null,
      created_by: "test",
      owner: null,
    });
    forgetRules();
    expect((await rulesInForceFor(env, agent, null)).map((r) => r.rule_id)).toEqual([rule.rule_id]);
    const admin = { authorization: "Bearer test-admin-token" };
    expect((await call(`/v1/approval-rules/${rule.rule_id}`, { method: "DELETE", headers: admin })).status).toBe(200);
    expect(await rulesInForceFor(env, agent, null)).toEqual([]);
  });
});
