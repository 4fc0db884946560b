import type { ToolSpec } from "@edgeloop/protocol";
import type { ApprovalRuleMatch } from "@edgeloop/protocol/approval-rules";
import { describe, expect, it } from "vitest";
import {
  advance,
  initialState,
  type LoopConfig,
  type LoopState,
  ruleTargetOf,
} from "../../../durable-objects/conversation/core/index.js";
import { calls, only, spec } from "../loop/fixtures.js";

const NOW = 1_700_000_000_000;
const bash = spec("bash", { command: { type: "string" } }, ["command"]);
const FLEET: ToolSpec[] = [
  { ...bash, fleet: { tool: "bash", agents: ["pi-1", "pi-2"] } },
  { ...bash, name: "pi-1__bash", fleet: { tool: "bash", agents: ["pi-1"] } },
  { ...bash, name: "pi-2__bash", fleet: { tool: "bash", agents: ["pi-2"] } },
];

function start(config: Partial<LoopConfig>, rules?: ApprovalRuleMatch[]): LoopState {
  return advance(
    initialState("conv-1", "pi-1", config),
    { type: "user_message", message_id: "m1", text: "go", tools: FLEET, ...(rules ? { approval_rules: rules } : {}) },
    NOW,
  ).state;
}

function respond(state: LoopState, ...list: [string, unknown, string][]) {
  return advance(state, { type: "llm_response", call_id: state.run!.awaiting_llm!, turn: calls(...list) }, NOW);
}

const rule = (over: Partial<ApprovalRuleMatch>): ApprovalRuleMatch => ({
  rule_id: "r1",
  effect: "allow",
  agent_id: "pi-2",
  tool: "bash",
  pattern: null,
  expires_at: null,
  ...over,
});

describe("a fleet's calls are held to the policies of the devices' own tool name", () => {
  it("TOOL_POLICIES for `bash` asks for approval on every device's bash", () => {
    const b = respond(
      start({ policies: { bash: "requires_approval" } }),
      ["pi-2__bash", { command: "uptime" }, "c1"],
      ["bash", { command: "uptime" }, "c2"],
    );
    expect(only(b.effects, "dispatch_tool")).toEqual([]);
    const asked = only(b.effects, "emit_event").filter((e) => e.event.type === "approval_required");
    expect(asked).toHaveLength(2);
  });

  it("deny patterns and parameter overrides for `bash` apply to pi-1__bash", () => {
    const config = { deny_patterns: { bash: ["rm -rf"] }, param_overrides: { bash: { timeout_ms: 1000 } } };
    const b = respond(
      start(config),
      ["pi-1__bash", { command: "rm -rf /" }, "c1"],
      ["pi-2__bash", { command: "ls" }, "c2"],
    );
    const dispatched = only(b.effects, "dispatch_tool");
    expect(dispatched).toMatchObject([{ tool: "pi-2__bash", parameters: { command: "ls", timeout_ms: 1000 } }]);
    const ends = only(b.effects, "emit_event").filter((e) => e.event.type === "tool_execution_end");
    expect(JSON.stringify(ends)).toContain("Tool blocked by policy");
  });

  it("an approval rule for one device answers only for that device's name, never for a routed call", () => {
    const config = { policies: { bash: "requires_approval" as const } };
    const b = respond(
      start(config, [rule({})]),
      ["pi-2__bash", { command: "ls" }, "c1"],
      ["pi-1__bash", { command: "ls" }, "c2"],
      ["bash", { command: "ls" }, "c3"],
    );
    expect(only(b.effects, "dispatch_tool")).toMatchObject([{ tool: "pi-2__bash", approval: "rule:r1" }]);
    expect(b.state.run!.round!.map((c) => c.state)).toEqual(["dispatched", "awaiting_approval", "awaiting_approval"]);
    // A rule for any device answers for the routed name too.
    const any = respond(start(config, [rule({ agent_id: null })]), ["bash", { command: "ls" }, "c1"]);
    expect(only(any.effects, "dispatch_tool")).toMatchObject([{ tool: "bash", approval: "rule:r1" }]);
  });

  it("says what a remembered decision on a fleet call is kept for", () => {
    const s = start({});
    expect(ruleTargetOf(s, "pi-2__bash")).toEqual({ agent_id: "pi-2", tool: "bash" });
    expect(ruleTargetOf(s, "bash")).toEqual({ agent_id: null, tool: "bash" });
    expect(ruleTargetOf(s, "echo")).toEqual({ agent_id: "pi-1", tool: "echo" });
  });
});
