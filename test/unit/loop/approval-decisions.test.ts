/** A person's decision on waiting calls: it lands on the call it names, and a rule decides the matching others its way. */
import type { ApprovalRuleMatch } from "@edgeloop/protocol/approval-rules";
import { describe, expect, it } from "vitest";
import { advance, initialState, type LoopState } from "../../../durable-objects/conversation/core/index.js";
import { calls, only, TOOLS } from "./fixtures.js";

const NOW = 1_700_000_000_000;

function rule(over: Partial<ApprovalRuleMatch> = {}): ApprovalRuleMatch {
  return { rule_id: "r1", effect: "allow", agent_id: "pi-1", tool: "bash", pattern: null, expires_at: null, ...over };
}

/** A round of three calls: two bash calls waiting for a person, and a `read` that needs no approval. */
function waitingRound(): LoopState {
  const a = advance(
    initialState("conv-1", "pi-1", { policies: { bash: "requires_approval" } }),
    { type: "user_message", message_id: "m1", text: "go", tools: TOOLS },
    NOW,
  );
  const turn = calls(
    ["bash", { command: "df" }, "c1"],
    ["bash", { command: "du" }, "c2"],
    ["read", { path: "/a" }, "c3"],
  );
  const b = advance(a.state, { type: "llm_response", call_id: a.state.run!.awaiting_llm!, turn }, NOW);
  expect(b.state.run!.round!.map((c) => c.state)).toEqual(["awaiting_approval", "awaiting_approval", "dispatched"]);
  return b.state;
}

const states = (s: LoopState) => s.run!.round!.map((c) => [c.id, c.state, c.decided_by ?? null]);

describe("approvals: the decision lands on the call it names", () => {
  it("approving the second call dispatches that call only; the first keeps waiting", () => {
    const r = advance(waitingRound(), { type: "approval", tool_call_id: "c2", approve: true }, NOW);
    expect(only(r.effects, "dispatch_tool").map((d) => [d.tool_call_id, d.approval])).toEqual([["c2", "person"]]);
    expect(only(r.effects, "clear_deadline")).toEqual([{ type: "clear_deadline", key: "approval:m1.1.1" }]);
    expect(states(r.state)).toEqual([
      ["c1", "awaiting_approval", null],
      ["c2", "dispatched", "person"],
      ["c3", "dispatched", null],
    ]);
  });

  it("a once-denial blocks the named call with the person's reason and leaves the others waiting", () => {
    const r = advance(waitingRound(), { type: "approval", tool_call_id: "c2", approve: false, reason: "not now" }, NOW);
    expect(only(r.effects, "dispatch_tool")).toEqual([]);
    expect(r.state.run!.round![1]!.outcome).toEqual({
      status: "blocked",
      tool: "bash",
      reason: "Denied by a person: not now",
    });
    expect(only(r.effects, "record_denial")).toMatchObject([{ request_id: "m1.1.1", decided_by: "person" }]);
    expect(r.state.run!.round![0]!.state).toBe("awaiting_approval");
  });

  it("a denial without a reason says only that a person denied it", () => {
    const r = advance(waitingRound(), { type: "approval", tool_call_id: "c1", approve: false }, NOW);
    expect(r.state.run!.round![0]!.outcome).toEqual({ status: "blocked", tool: "bash", reason: "Denied by a person" });
  });

  it("a decision for a call that is not waiting (unknown, already running) changes nothing", () => {
    const s = waitingRound();
    for (const id of ["nope", "c3"]) {
      const r = advance(s, { type: "approval", tool_call_id: id, approve: false }, NOW);
      expect(r.effects).toEqual([]);
      expect(states(r.state)).toEqual(states(s));
    }
  });
});

describe("approvals: a decision remembered as a rule", () => {
  it("a person's deny rule blocks the other waiting calls it matches instead of approving them", () => {
    const deny = rule({ rule_id: "d1", effect: "deny" });
    const r = advance(waitingRound(), { type: "approval", tool_call_id: "c1", approve: false, rule: deny }, NOW);
    expect(only(r.effects, "dispatch_tool")).toEqual([]);
    expect(states(r.state)).toEqual([
      ["c1", "done", "rule:d1"],
      ["c2", "done", "rule:d1"],
      ["c3", "dispatched", null],
    ]);
    expect(r.state.run!.round![1]!.outcome).toEqual({
      status: "blocked",
      tool: "bash",
      reason: "Denied by approval rule d1",
    });
    // Each call is decided once: one audit record and one end event apiece.
    expect(only(r.effects, "record_denial").map((d) => d.request_id)).toEqual(["m1.1.0", "m1.1.1"]);
    const ends = only(r.effects, "emit_event").filter((e) => e.event.type === "tool_execution_end");
    expect(ends.map((e) => (e.event as { toolCallId: string }).toolCallId)).toEqual(["c1", "c2"]);
    expect(r.state.approval_rules).toEqual([deny]);
  });

  it("an allow rule with a pattern decides the other calls whose arguments match it, each once", () => {
    const allow = rule({ rule_id: "a1", pattern: '"command":"d' });
    const r = advance(waitingRound(), { type: "approval", tool_call_id: "c1", approve: true, rule: allow }, NOW);
    expect(only(r.effects, "dispatch_tool").map((d) => [d.tool_call_id, d.approval])).toEqual([
      ["c1", "rule:a1"],
      ["c2", "rule:a1"],
    ]);
    expect(only(r.effects, "clear_deadline").map((c) => c.key)).toEqual(["approval:m1.1.0", "approval:m1.1.1"]);
  });

  it("a rule that does not match another waiting call leaves it waiting", () => {
    const allow = rule({ rule_id: "a2", pattern: '"command":"df"' });
    const r = advance(waitingRound(), { type: "approval", tool_call_id: "c1", approve: true, rule: allow }, NOW);
    expect(states(r.state)).toEqual([
      ["c1", "dispatched", "rule:a2"],
      ["c2", "awaiting_approval", null],
      ["c3", "dispatched", null],
    ]);
  });

  it("a new rule replaces one with the same id and keeps the others", () => {
    const s = { ...waitingRound(), approval_rules: [rule({ rule_id: "old" }), rule({ rule_id: "a3", tool: "read" })] };
    const a3 = rule({ rule_id: "a3", pattern: '"command":"df"' });
    const r = advance(s, { type: "approval", tool_call_id: "c1", approve: true, rule: a3 }, NOW);
    expect(r.state.approval_rules).toEqual([rule({ rule_id: "old" }), a3]);
  });
});

describe("approvals: a decision with nothing to decide", () => {
  it("with no run, or while the model is thinking, a decision changes nothing", () => {
    expect(
      advance(initialState("conv-1", "pi-1"), { type: "approval", tool_call_id: "c1", approve: true }, NOW).effects,
    ).toEqual([]);
    const thinking = advance(
      initialState("conv-1", "pi-1"),
      { type: "user_message", message_id: "m1", text: "go", tools: TOOLS },
      NOW,
    ).state;
    expect(
      advance(thinking, { type: "approval", tool_call_id: "c1", approve: true, rule: rule() }, NOW).effects,
    ).toEqual([]);
  });

  it("a once-decision leaves the conversation's rules as they were", () => {
    const s = { ...waitingRound(), approval_rules: [rule({ rule_id: "keep", tool: "read" })] };
    const r = advance(s, { type: "approval", tool_call_id: "c1", approve: true }, NOW);
    expect(r.state.approval_rules).toEqual([rule({ rule_id: "keep", tool: "read" })]);
  });
});
