/** A direct call leaves a well-formed history: the system prompt once, a user turn, the call, its result. */
import { describe, expect, it } from "vitest";
import { advance, initialState } from "../../../durable-objects/conversation/core/index.js";
import { NOW } from "./advance-helpers.js";
import { ok, only, TOOLS } from "./fixtures.js";

const call = (id: string, args: object = { command: "uptime" }) => ({
  id,
  name: "bash",
  arguments: JSON.stringify(args),
});

describe("a direct call's history", () => {
  it("opens a new conversation with the system prompt, a user turn naming the tool, and the call", () => {
    const s0 = initialState("conv-d", "pi-1", { system_prompt: "You run tools." });
    const a = advance(s0, { type: "tool_call", message_id: "d1", call: call("x1"), tools: TOOLS }, NOW);
    expect(a.state.messages).toEqual([
      { role: "system", content: "You run tools." },
      { role: "user", content: "[edgeloop] An MCP client called the tool 'bash' directly." },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "x1", type: "function", function: { name: "bash", arguments: '{"command":"uptime"}' } }],
      },
    ]);
    expect(a.state.run).toMatchObject({ direct: true, iteration: 1, message_id: "d1" });
    expect(only(a.effects, "emit_event")[0]!.event).toEqual({
      type: "message_start",
      message_id: "d1",
      text: "[edgeloop] An MCP client called the tool 'bash' directly.",
    });

    // The second direct call in the same conversation does not repeat the system prompt.
    const b = advance(
      a.state,
      { type: "tool_result", tool_call_id: "x1", request_id: "d1.1.0", outcome: ok("bash", "up") },
      NOW,
    );
    const c = advance(b.state, { type: "tool_call", message_id: "d2", call: call("x2"), tools: TOOLS }, NOW);
    expect(c.state.messages.filter((m) => m.role === "system")).toHaveLength(1);
    expect(only(c.effects, "dispatch_tool")).toMatchObject([{ request_id: "d2.1.0", tool_call_id: "x2" }]);
  });

  it("without a system prompt the history starts at the user turn", () => {
    const a = advance(
      initialState("conv-d", "pi-1"),
      { type: "tool_call", message_id: "d1", call: call("x1"), tools: TOOLS },
      NOW,
    );
    expect(a.state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("a repeat of a finished direct call, or one arriving while a run is going, changes nothing", () => {
    const a = advance(
      initialState("conv-d", "pi-1"),
      { type: "tool_call", message_id: "d1", call: call("x1"), tools: TOOLS },
      NOW,
    );
    const busy = advance(a.state, { type: "tool_call", message_id: "d2", call: call("x2"), tools: TOOLS }, NOW);
    expect(busy.effects).toEqual([]);
    const b = advance(
      a.state,
      { type: "tool_result", tool_call_id: "x1", request_id: "d1.1.0", outcome: ok("bash", "up") },
      NOW,
    );
    const again = advance(b.state, { type: "tool_call", message_id: "d1", call: call("x1"), tools: TOOLS }, NOW);
    expect(again.effects).toEqual([]);
    expect(again.state.messages).toEqual(b.state.messages);
  });

  it("takes the approval rules the call arrived with", () => {
    const rule = {
      rule_id: "r1",
      effect: "deny" as const,
      agent_id: null,
      tool: "bash",
      pattern: null,
      expires_at: null,
    };
    const s0 = initialState("conv-d", "pi-1", { policies: { bash: "requires_approval" } });
    const a = advance(
      s0,
      { type: "tool_call", message_id: "d1", call: call("x1"), tools: TOOLS, approval_rules: [rule] },
      NOW,
    );
    expect(a.state.approval_rules).toEqual([rule]);
    expect(only(a.effects, "reply")[0]!.reply.outcome).toEqual({
      status: "blocked",
      tool: "bash",
      reason: "Denied by approval rule r1",
    });
  });
});
