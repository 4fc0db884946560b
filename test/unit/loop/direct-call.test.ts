/** A caller's own tool call (an MCP client's tools/call) as a run: the model's path, minus the model. */
import { describe, expect, it } from "vitest";
import { advance, initialState, type LoopState } from "../../../durable-objects/conversation/core/index.js";
import { NOW } from "./advance-helpers.js";
import { fail, ok, only, TOOLS } from "./fixtures.js";

function direct(args: unknown, config = {}, name = "bash") {
  const s0 = initialState("conv-d", "pi-1", config);
  const call = { id: "mcp_call", name, arguments: JSON.stringify(args) };
  return advance(s0, { type: "tool_call", message_id: "msg-d", call, tools: TOOLS }, NOW);
}

describe("a direct tool call", () => {
  it("dispatches through the outbox with a deadline, and ends with the result as the reply, no model call", () => {
    const { state, effects } = direct({ command: "uptime" });
    expect(only(effects, "call_llm")).toEqual([]);
    expect(only(effects, "dispatch_tool")).toEqual([
      {
        type: "dispatch_tool",
        tool_call_id: "mcp_call",
        request_id: "msg-d.1.0",
        tool: "bash",
        parameters: { command: "uptime" },
        timeout_ms: 30_000,
      },
    ]);
    expect(only(effects, "set_deadline").map((e) => e.key)).toEqual(["tool:msg-d.1.0"]);
    const done = advance(
      state,
      { type: "tool_result", tool_call_id: "mcp_call", request_id: "msg-d.1.0", outcome: ok("bash", "up 3 days") },
      NOW + 10,
    );
    expect(only(done.effects, "call_llm")).toEqual([]);
    const [reply] = only(done.effects, "reply");
    expect(reply!.reply).toMatchObject({
      message_id: "msg-d",
      status: "completed",
      reply: "up 3 days",
      stop_reason: "answer",
      outcome: ok("bash", "up 3 days"),
      tool_calls: [{ id: "mcp_call", name: "bash", status: "success" }],
    });
    expect(done.state.status).toBe("completed");
    expect(done.state.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("is validated, blocked by the deny-list hook, and redacted like a model's call", () => {
    const invalid = direct({ nope: 1 });
    const [bad] = only(invalid.effects, "reply");
    expect(bad!.reply.outcome).toMatchObject({ status: "error", error_type: "invalid_params" });
    expect(only(invalid.effects, "dispatch_tool")).toEqual([]);

    const blocked = direct({ command: "rm -rf /" }, { deny_patterns: { bash: ["rm -rf"] } });
    expect(only(blocked.effects, "reply")[0]!.reply.outcome).toMatchObject({ status: "blocked" });

    const { state } = direct({ command: "env" }, { redact_patterns: ["hunter2"] });
    const done = advance(
      state,
      { type: "tool_result", tool_call_id: "mcp_call", request_id: "msg-d.1.0", outcome: fail("bash", "pw hunter2") },
      NOW,
    );
    const reply = only(done.effects, "reply")[0]!.reply;
    expect(JSON.stringify(reply)).not.toContain("hunter2");
    expect(reply.outcome).toMatchObject({ status: "error", error: "pw [REDACTED]" });
  });

  it("waits for approval when its policy says so, and a denial is the reply", () => {
    const { state, effects } = direct({ command: "ls" }, { policies: { bash: "requires_approval" } });
    expect(only(effects, "dispatch_tool")).toEqual([]);
    expect(only(effects, "emit_event").map((e) => e.event.type)).toContain("approval_required");
    const denied = advance(state, { type: "approval", tool_call_id: "mcp_call", approve: false, reason: "no" }, NOW);
    expect(only(denied.effects, "reply")[0]!.reply.outcome).toEqual({
      status: "blocked",
      tool: "bash",
      reason: "Denied by a person: no",
    });
  });

  it("a repeat of the same call changes nothing; cancel stops it", () => {
    const first = direct({ command: "sleep 9" });
    const call = { id: "mcp_call", name: "bash", arguments: '{"command":"sleep 9"}' };
    const again = advance(first.state, { type: "tool_call", message_id: "msg-d", call, tools: TOOLS }, NOW);
    expect(again.effects).toEqual([]);
    const cancelled = advance(first.state, { type: "cancel", reason: "client" }, NOW);
    expect(only(cancelled.effects, "cancel_tool")).toEqual([{ type: "cancel_tool", request_id: "msg-d.1.0" }]);
    expect(only(cancelled.effects, "reply")[0]!.reply).toMatchObject({ status: "cancelled", stop_reason: "cancel" });
    const after: LoopState = cancelled.state;
    expect(advance(after, { type: "tool_call", message_id: "msg-d", call, tools: TOOLS }, NOW).effects).toEqual([]);
  });
});
