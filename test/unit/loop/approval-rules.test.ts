import type { ApprovalRuleMatch } from "@edgeloop/protocol/approval-rules";
import { describe, expect, it } from "vitest";
import { ruleFor } from "../../../durable-objects/conversation/core/approval-rules.js";
import { advance, initialState, type LoopState } from "../../../durable-objects/conversation/core/index.js";
import { calls, only, TOOLS } from "./fixtures.js";

const NOW = 1_700_000_000_000;
const config = { policies: { bash: "requires_approval" as const } };

function rule(over: Partial<ApprovalRuleMatch> = {}): ApprovalRuleMatch {
  return { rule_id: "r1", effect: "allow", agent_id: "pi-1", tool: "bash", pattern: null, expires_at: null, ...over };
}

function start(rules: ApprovalRuleMatch[] | undefined, state?: LoopState, id = "m1") {
  return advance(
    state ?? initialState("conv-1", "pi-1", config),
    { type: "user_message", message_id: id, text: "go", tools: TOOLS, ...(rules ? { approval_rules: rules } : {}) },
    NOW,
  );
}

function respond(state: LoopState, ...list: [string, unknown, string][]) {
  return advance(state, { type: "llm_response", call_id: state.run!.awaiting_llm!, turn: calls(...list) }, NOW);
}

describe("approval rules: matching", () => {
  it("prefers deny, skips other devices, other tools, expired rules and non-matching patterns", () => {
    const args = { command: "rm -rf /tmp/x" };
    expect(ruleFor([rule()], "pi-1", "bash", args, NOW)?.rule_id).toBe("r1");
    expect(ruleFor([rule(), rule({ rule_id: "d", effect: "deny" })], "pi-1", "bash", args, NOW)?.rule_id).toBe("d");
    expect(ruleFor([rule({ agent_id: "pi-2" })], "pi-1", "bash", args, NOW)).toBeNull();
    expect(ruleFor([rule({ agent_id: null })], "pi-1", "bash", args, NOW)?.rule_id).toBe("r1");
    expect(ruleFor([rule({ tool: "read" })], "pi-1", "bash", args, NOW)).toBeNull();
    expect(ruleFor([rule({ expires_at: NOW })], "pi-1", "bash", args, NOW)).toBeNull();
    expect(ruleFor([rule({ expires_at: NOW + 1 })], "pi-1", "bash", args, NOW)?.rule_id).toBe("r1");
    expect(ruleFor([rule({ pattern: '"command":"ls' })], "pi-1", "bash", args, NOW)).toBeNull();
    expect(ruleFor([rule({ pattern: '"command":"rm ' })], "pi-1", "bash", args, NOW)?.rule_id).toBe("r1");
  });
});

describe("approval rules: in the loop", () => {
  it("an allow rule runs the call without asking, and the dispatch names the rule", () => {
    const b = respond(start([rule()]).state, ["bash", { command: "uptime" }, "c1"]);
    expect(only(b.effects, "emit_event").map((e) => e.event.type)).not.toContain("approval_required");
    expect(only(b.effects, "dispatch_tool")).toMatchObject([{ tool: "bash", approval: "rule:r1" }]);
  });

  it("a deny rule blocks the call without asking: a result the model reads, and an audit record", () => {
    const b = respond(start([rule({ effect: "deny", rule_id: "d9" })]).state, ["bash", { command: "uptime" }, "c1"]);
    expect(only(b.effects, "dispatch_tool")).toHaveLength(0);
    expect(only(b.effects, "record_denial")).toMatchObject([
      { tool: "bash", decided_by: "rule:d9", parameters: { command: "uptime" } },
    ]);
    const tool = b.state.messages.find((m) => m.role === "tool") as { content: string };
    expect(JSON.parse(tool.content)).toEqual({ status: "blocked", tool: "bash", reason: "Denied by approval rule d9" });
    expect(only(b.effects, "call_llm")).toHaveLength(1);
  });

  it("calls that need no approval are not touched by rules", () => {
    const b = respond(start([rule({ tool: "read", effect: "deny" })]).state, ["read", { path: "/etc/hosts" }, "c1"]);
    expect(only(b.effects, "dispatch_tool")).toMatchObject([{ tool: "read" }]);
    expect(only(b.effects, "dispatch_tool")[0]).not.toHaveProperty("approval");
  });

  it("an 'always' decision settles the round's other matching calls and the next message's calls", () => {
    const b = respond(start(undefined).state, ["bash", { command: "df" }, "c1"], ["bash", { command: "du" }, "c2"]);
    expect(b.state.run!.round!.map((c) => c.state)).toEqual(["awaiting_approval", "awaiting_approval"]);
    const c = advance(
      b.state,
      { type: "approval", tool_call_id: "c1", approve: true, rule: rule({ rule_id: "r7" }) },
      NOW,
    );
    expect(only(c.effects, "dispatch_tool").map((d) => [d.tool_call_id, d.approval])).toEqual([
      ["c1", "rule:r7"],
      ["c2", "rule:r7"],
    ]);
    expect(c.state.approval_rules).toHaveLength(1);
    // Finish the run, then a new message: the remembered rule answers at once.
    let s = c.state;
    for (const call of s.run!.round!) {
      s = advance(
        s,
        {
          type: "tool_result",
          tool_call_id: call.id,
          request_id: call.request_id,
          outcome: { status: "success", tool: "bash", result: "ok", stderr: "", exit_code: 0, elapsed_ms: 1 },
        },
        NOW,
      ).state;
    }
    s = advance(
      s,
      { type: "llm_response", call_id: s.run!.awaiting_llm!, turn: { content: "done", toolCalls: [] } },
      NOW,
    ).state;
    expect(s.run).toBeNull();
    const d = respond(start(undefined, s, "m2").state, ["bash", { command: "df -h" }, "c3"]);
    expect(only(d.effects, "dispatch_tool")).toMatchObject([{ tool_call_id: "c3", approval: "rule:r7" }]);
  });

  it("a person's once-denial and an approval timeout are recorded with who decided", () => {
    const b = respond(start(undefined).state, ["bash", { command: "df" }, "c1"], ["bash", { command: "du" }, "c2"]);
    const c = advance(b.state, { type: "approval", tool_call_id: "c1", approve: false, reason: "no" }, NOW);
    expect(only(c.effects, "record_denial")).toMatchObject([{ request_id: "m1.1.0", decided_by: "person" }]);
    const key = only(b.effects, "set_deadline").find((e) => e.key.startsWith("approval:") && e.key.endsWith(".1"))!.key;
    const d = advance(c.state, { type: "deadline", key }, NOW + 3_600_000);
    expect(only(d.effects, "record_denial")).toMatchObject([{ request_id: "m1.1.1", decided_by: "timeout" }]);
  });
});
