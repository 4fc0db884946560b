// What each ending of a call says, through advance(): a call the orchestrator runs times out (it knows
// nothing was sent anywhere), an unapproved device call whose outcome is unknown is told a late result
// will come, and every approval decision that refused a call says why.

import type { ToolOutcome, ToolSpec } from "@edgeloop/protocol";
import type { ApprovalRuleMatch } from "@edgeloop/protocol/approval-rules";
import { describe, expect, it } from "vitest";
import {
  advance,
  type Effect,
  initialState,
  type LoopState,
} from "../../../durable-objects/conversation/core/index.js";
import { calls, only, spec, TOOLS } from "./fixtures.js";

const NOW = 1_700_000_000_000;
const WEBHOOK: ToolSpec = { ...spec("notify", { text: { type: "string" } }), kind: "webhook", timeout_ms: 5000 };

function round(config: object, name: string, args: object, tools = TOOLS, rules?: ApprovalRuleMatch[]) {
  const a = advance(
    initialState("conv-1", "pi-1", config),
    { type: "user_message", message_id: "m1", text: "go", tools, ...(rules ? { approval_rules: rules } : {}) },
    NOW,
  );
  return advance(
    a.state,
    { type: "llm_response", call_id: a.state.run!.awaiting_llm!, turn: calls([name, args, "c1"]) },
    NOW,
  );
}

const toolMessage = (state: LoopState) => state.messages.find((m) => m.role === "tool") as { content: string };
const events = (effects: Effect[], type: string) =>
  only(effects, "emit_event")
    .map((e) => e.event)
    .filter((e) => e.type === type);

describe("call endings: a call the orchestrator runs", () => {
  it("ends as timed out at its deadline, not as an unknown outcome", () => {
    const b = round({}, "notify", { text: "hi" }, [WEBHOOK]);
    const deadline = only(b.effects, "set_deadline").find((d) => d.key.includes("m1.1.0"))!;
    const c = advance(b.state, { type: "deadline", key: deadline.key }, deadline.at);
    const end = events(c.effects, "tool_execution_end")[0] as { result: ToolOutcome };
    expect(end.result).toEqual({
      status: "error",
      tool: "notify",
      error: "Tool 'notify' timed out after 5000ms",
      error_type: "timeout",
    });
    expect(toolMessage(c.state).content).toBe(
      "Error: Tool 'notify' timed out after 5000ms.\nTry again with a shorter timeout or explain to the user.",
    );
  });
});

describe("call endings: a device call with an unknown outcome", () => {
  it("that needed no approval is told its late result will come", () => {
    const b = round({}, "bash", { command: "git commit" });
    const request_id = b.state.run!.round![0]!.request_id;
    const unknown: ToolOutcome = { status: "error", tool: "bash", error: "no result", error_type: "outcome_unknown" };
    const c = advance(b.state, { type: "tool_result", tool_call_id: "c1", request_id, outcome: unknown }, NOW);
    expect(toolMessage(c.state).content.split("\n").at(-1)).toBe(
      "If the device sends its result later, you will be told at your next turn.",
    );
  });
});

describe("call endings: a refused approval says why", () => {
  const config = { policies: { bash: "requires_approval" as const } };

  it("a deny rule: the decision and the tool message carry the rule's reason", () => {
    const rule: ApprovalRuleMatch = {
      rule_id: "r7",
      effect: "deny",
      agent_id: "pi-1",
      tool: "bash",
      pattern: null,
      expires_at: null,
    };
    const b = round(config, "bash", { command: "rm -rf /" }, TOOLS, [rule]);
    expect(events(b.effects, "approval_decided")).toEqual([
      {
        type: "approval_decided",
        toolCallId: "c1",
        toolName: "bash",
        approved: false,
        decided_by: "rule:r7",
        reason: "Denied by approval rule r7",
        waited_ms: 0,
      },
    ]);
  });

  it("the approval deadline: nobody approved it", () => {
    const b = round(config, "bash", { command: "reboot" });
    const key = only(b.effects, "set_deadline")[0]!.key;
    const c = advance(b.state, { type: "deadline", key }, NOW + 60_000);
    const reason = "Nobody approved the call before its approval deadline";
    expect(events(c.effects, "approval_decided")).toMatchObject([{ approved: false, decided_by: "timeout", reason }]);
    expect(JSON.parse(toolMessage(c.state).content)).toEqual({ status: "blocked", tool: "bash", reason });
  });
});
