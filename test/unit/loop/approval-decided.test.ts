// Every call that needed approval ends its wait with one approval_decided event saying how it was
// decided, by whom and after how long, and the run's tool_calls summary keeps the tool's own time
// apart from that wait.
import type { ApprovalRuleMatch } from "@edgeloop/protocol/approval-rules";
import { describe, expect, it } from "vitest";
import {
  advance,
  type Effect,
  initialState,
  type LoopState,
} from "../../../durable-objects/conversation/core/index.js";
import { calls, ok, only, TOOLS } from "./fixtures.js";

const NOW = 1_700_000_000_000;
const config = { policies: { bash: "requires_approval" as const } };

function waiting(rules?: ApprovalRuleMatch[]) {
  const a = advance(
    initialState("conv-1", "pi-1", config),
    { type: "user_message", message_id: "m1", text: "go", tools: TOOLS, ...(rules ? { approval_rules: rules } : {}) },
    NOW,
  );
  const turn = calls(["bash", { command: "uptime" }, "c1"]);
  return advance(a.state, { type: "llm_response", call_id: a.state.run!.awaiting_llm!, turn }, NOW);
}

const decided = (effects: Effect[]) =>
  only(effects, "emit_event")
    .map((e) => e.event)
    .filter((e) => e.type === "approval_decided");

function finish(state: LoopState, at: number) {
  const request_id = state.run!.round![0]!.request_id;
  return advance(state, { type: "tool_result", tool_call_id: "c1", request_id, outcome: ok("bash", "up") }, at);
}

describe("approval_decided", () => {
  it("a person's approval: the event names the person and the wait; the summary keeps run time apart", () => {
    const b = waiting();
    expect(decided(b.effects)).toEqual([]);
    const c = advance(b.state, { type: "approval", tool_call_id: "c1", approve: true }, NOW + 80_000);
    expect(decided(c.effects)).toEqual([
      {
        type: "approval_decided",
        toolCallId: "c1",
        toolName: "bash",
        approved: true,
        decided_by: "person",
        waited_ms: 80_000,
      },
    ]);
    const d = finish(c.state, NOW + 80_200);
    expect(d.state.run!.tool_calls).toMatchObject([
      { id: "c1", status: "success", elapsed_ms: 5, approval_wait_ms: 80_000, decided_by: "person" },
    ]);
  });

  it("a denial carries the reason", () => {
    const c = advance(
      waiting().state,
      { type: "approval", tool_call_id: "c1", approve: false, reason: "no" },
      NOW + 10,
    );
    expect(decided(c.effects)).toMatchObject([
      { approved: false, decided_by: "person", reason: "Denied by a person: no" },
    ]);
  });

  it("the approval deadline decides as 'timeout'", () => {
    const b = waiting();
    const key = only(b.effects, "set_deadline")[0]!.key;
    const c = advance(b.state, { type: "deadline", key }, NOW + 3_600_001);
    expect(decided(c.effects)).toMatchObject([{ approved: false, decided_by: "timeout", waited_ms: 3_600_001 }]);
  });

  it("a rule that answers before anyone is asked is announced too, with no wait", () => {
    const rule: ApprovalRuleMatch = {
      rule_id: "r7",
      effect: "allow",
      agent_id: "pi-1",
      tool: "bash",
      pattern: null,
      expires_at: null,
    };
    const b = waiting([rule]);
    expect(decided(b.effects)).toEqual([
      {
        type: "approval_decided",
        toolCallId: "c1",
        toolName: "bash",
        approved: true,
        decided_by: "rule:r7",
        waited_ms: 0,
      },
    ]);
    const denied = waiting([{ ...rule, effect: "deny" }]);
    expect(decided(denied.effects)).toMatchObject([{ approved: false, decided_by: "rule:r7" }]);
  });

  it("calls that need no approval get no decision event and no approval fields", () => {
    const a = advance(
      initialState("conv-1", "pi-1", {}),
      { type: "user_message", message_id: "m1", text: "go", tools: TOOLS },
      NOW,
    );
    const b = advance(
      a.state,
      { type: "llm_response", call_id: a.state.run!.awaiting_llm!, turn: calls(["bash", { command: "ls" }, "c1"]) },
      NOW,
    );
    expect(decided(b.effects)).toEqual([]);
    const d = finish(b.state, NOW + 5);
    expect(d.state.run!.tool_calls[0]).not.toHaveProperty("approval_wait_ms");
  });
});
