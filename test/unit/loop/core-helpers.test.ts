import { describe, expect, it } from "vitest";
import { decideByRule, recordDenial } from "../../../durable-objects/conversation/core/approval-rules.js";
import { callName } from "../../../durable-objects/conversation/core/late-results.js";
import { DEFAULT_LOOP_CONFIG } from "../../../durable-objects/conversation/core/loop-config.js";
import { redactForPersist } from "../../../durable-objects/conversation/core/tool-policy.js";
import type { Effect, LoopState, RoundCall } from "../../../durable-objects/conversation/core/types.js";

/** The loop core's small helpers, called as their callers in round.ts, approvals.ts and the shell call them. */

const call = (over: Partial<RoundCall> = {}): RoundCall => ({
  id: "call_1",
  name: "bash",
  args: { command: "ls" },
  raw_arguments: '{"command":"ls"}',
  request_id: "req_1",
  timeout_ms: 30_000,
  kind: "device",
  state: "queued",
  outcome: null,
  ...over,
});

describe("the default redaction", () => {
  it.each([
    ["an OpenAI key", "sk-abcdefghijklmnop1234"],
    ["an AWS access key id", "AKIAIOSFODNN7EXAMPLE"],
    ["a GitHub token", `ghp_${"a".repeat(36)}`],
    ["a Slack token", "xoxb-1234567890-abcdef"],
    ["a private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----"],
  ])("hides %s in what is stored", (_name, secret) => {
    expect(redactForPersist(DEFAULT_LOOP_CONFIG, `before ${secret} after`)).toBe("before [REDACTED] after");
  });

  it("hides a bearer token but keeps the word Bearer", () => {
    expect(redactForPersist(DEFAULT_LOOP_CONFIG, "Authorization: Bearer abcdefghijklmnop1234")).toBe(
      "Authorization: Bearer [REDACTED]",
    );
  });
});

describe("a call's approval rules", () => {
  const rule = {
    rule_id: "r1",
    effect: "deny" as const,
    agent_id: "pi-1",
    tool: "bash",
    pattern: null,
    expires_at: null,
  };

  it("are matched by the conversation's device and the call's name unless told otherwise", () => {
    const state = { agent_id: "pi-1", approval_rules: [rule] } as unknown as LoopState;
    expect(decideByRule(state, call(), 0)).toMatchObject({ state: "done", decided_by: "rule:r1" });
    const elsewhere = { agent_id: "pi-2", approval_rules: [rule] } as unknown as LoopState;
    expect(decideByRule(elsewhere, call(), 0)).toMatchObject({ state: "awaiting_approval" });
  });

  it("put only a blocked device call that someone decided into the device's audit log", () => {
    const effects: Effect[] = [];
    const blocked = { status: "blocked" as const, tool: "bash", reason: "Denied by a person" };
    recordDenial(effects, call({ decided_by: "person", state: "done", outcome: blocked }));
    expect(effects).toEqual([
      {
        type: "record_denial",
        request_id: "req_1",
        tool: "bash",
        parameters: { command: "ls" },
        decided_by: "person",
        reason: "Denied by a person",
      },
    ]);
    const done = { status: "success" as const, tool: "bash", result: "ok" } as RoundCall["outcome"];
    recordDenial(effects, call({ decided_by: "person", state: "done", outcome: done }));
    recordDenial(effects, call({ decided_by: "person", state: "queued", outcome: null }));
    recordDenial(effects, call({ state: "done", outcome: blocked }));
    recordDenial(effects, call({ kind: "builtin", decided_by: "person", state: "done", outcome: blocked }));
    expect(effects).toHaveLength(1);
  });
});

describe("a late result's call", () => {
  it("is found in the round under way before the history", () => {
    const state = {
      run: { round: [call({ id: "call_9", name: "read" })] },
      messages: [{ role: "user", content: "hi" }],
    } as unknown as LoopState;
    expect(callName(state, "call_9")).toBe("read");
    expect(callName(state, "call_8")).toBeNull();
  });
});
