/** advance(): a turn from the user's message to the reply, and how tool calls are checked and dispatched. */
import { describe, expect, it } from "vitest";
import { advance, initialState } from "../../../durable-objects/conversation/core/index.js";
import { answer, llmCallId, NOW, start } from "./advance-helpers.js";
import { calls, ok, only, spec, text } from "./fixtures.js";

describe("loop core: advance()", () => {
  it("starts with an LLM call that offers the tools", () => {
    const { state, effects } = start();
    expect(state.status).toBe("running");
    expect(state.messages).toEqual([{ role: "user", content: "hello" }]);
    expect(only(effects, "call_llm")).toEqual([{ type: "call_llm", call_id: llmCallId(state), with_tools: true }]);
  });

  it("ends the loop on a text answer", () => {
    const a = start();
    const b = answer(a.state, text("Hi there"));
    expect(b.state.status).toBe("completed");
    expect(b.state.run).toBeNull();
    const [reply] = only(b.effects, "reply");
    expect(reply!.reply).toMatchObject({
      reply: "Hi there",
      status: "completed",
      stop_reason: "answer",
      iterations: 1,
    });
    expect(only(b.effects, "call_llm")).toHaveLength(0);
    expect(only(b.effects, "emit_event").map((e) => e.event.type)).toContain("conversation_end");
  });

  it("runs one tool call and feeds the result back as a role:tool message", () => {
    const a = start();
    const b = answer(a.state, calls(["bash", { command: "uname -a" }, "call_1"]));
    const [dispatch] = only(b.effects, "dispatch_tool");
    expect(dispatch).toMatchObject({
      tool: "bash",
      parameters: { command: "uname -a" },
      timeout_ms: 30_000,
      tool_call_id: "call_1",
    });
    expect(only(b.effects, "set_deadline")[0]!.at).toBe(NOW + 30_000 + 15_000);
    expect(only(b.effects, "call_llm")).toHaveLength(0);

    const c = advance(
      b.state,
      {
        type: "tool_result",
        tool_call_id: "call_1",
        request_id: dispatch!.request_id,
        outcome: ok("bash", "Linux pi 6.1"),
      },
      NOW,
    );
    expect(c.state.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_1", content: "Linux pi 6.1" });
    expect(only(c.effects, "call_llm")).toHaveLength(1);
    const d = answer(c.state, text("It runs Linux pi 6.1"));
    expect(only(d.effects, "reply")[0]!.reply).toMatchObject({
      reply: "It runs Linux pi 6.1",
      iterations: 2,
      tool_calls: [{ id: "call_1", name: "bash", status: "success" }],
    });
  });

  it("chains two tools in order across two rounds", () => {
    let s = start().state;
    let r = answer(s, calls(["git_log", { max_count: 3 }, "c1"]));
    const first = only(r.effects, "dispatch_tool")[0]!;
    s = advance(
      r.state,
      { type: "tool_result", tool_call_id: "c1", request_id: first.request_id, outcome: ok("git_log", "commit abc") },
      NOW,
    ).state;
    r = answer(s, calls(["read", { path: "main.go" }, "c2"]));
    const second = only(r.effects, "dispatch_tool")[0]!;
    expect(second.request_id).not.toBe(first.request_id);
    s = advance(
      r.state,
      { type: "tool_result", tool_call_id: "c2", request_id: second.request_id, outcome: ok("read", "package main") },
      NOW,
    ).state;
    const tools = s.messages.filter((m) => m.role === "tool");
    expect(tools.map((m) => (m as { content: string }).content)).toEqual(["commit abc", "package main"]);
  });

  it("answers an unknown tool with an error naming the available tools, without dispatching", () => {
    const a = start();
    const b = answer(a.state, calls(["git_status", {}, "c1"]));
    expect(only(b.effects, "dispatch_tool")).toHaveLength(0);
    const toolMsg = b.state.messages.at(-1) as { role: string; content: string };
    expect(toolMsg.role).toBe("tool");
    expect(toolMsg.content).toContain("Tool 'git_status' not found. Available tools: bash, read, git_log.");
    expect(only(b.effects, "call_llm")).toHaveLength(1);
  });

  it("validates arguments before dispatch and tells the model the required and optional fields", () => {
    const a = start();
    const b = answer(a.state, calls(["read", { limit: 3 }, "c1"]));
    expect(only(b.effects, "dispatch_tool")).toHaveLength(0);
    const content = (b.state.messages.at(-1) as { content: string }).content;
    expect(content).toContain("missing 'path'");
    expect(content).toContain("Required: [path]");
    expect(content).toContain("Optional: [offset, limit]");
  });

  it("refuses arguments that are not JSON", () => {
    const a = start();
    const b = answer(a.state, calls(["bash", "{command: ls"]));
    expect(only(b.effects, "dispatch_tool")).toHaveLength(0);
    expect((b.state.messages.at(-1) as { content: string }).content).toMatch(/not valid JSON/);
  });

  it("asks once for a correction of a malformed text tool call, then gives up", () => {
    const a = start();
    const b = advance(
      a.state,
      {
        type: "llm_response",
        call_id: llmCallId(a.state),
        turn: { content: '<tool_call>{"name": bash}</tool_call>', toolCalls: [], malformedToolCall: "invalid JSON" },
      },
      NOW,
    );
    expect(only(b.effects, "call_llm")).toHaveLength(1);
    expect((b.state.messages.at(-1) as { content: string }).content).toContain("could not be read: invalid JSON");
    const c = advance(
      b.state,
      {
        type: "llm_response",
        call_id: llmCallId(b.state),
        turn: { content: "<tool_call>{</tool_call>", toolCalls: [], malformedToolCall: "invalid JSON" },
      },
      NOW,
    );
    expect(only(c.effects, "reply")[0]!.reply).toMatchObject({ status: "failed", stop_reason: "invalid_tool_call" });
  });

  it("clamps a requested timeout to the tool's max", () => {
    const tools = [
      {
        ...spec("bash", { command: { type: "string" }, timeout_ms: { type: "integer" } }, ["command"]),
        max_timeout_ms: 60_000,
      },
    ];
    const a = advance(initialState("c", "pi-1"), { type: "user_message", message_id: "m", text: "x", tools }, NOW);
    const b = answer(a.state, calls(["bash", { command: "sleep 1", timeout_ms: 999_999 }]));
    expect(only(b.effects, "dispatch_tool")[0]!.timeout_ms).toBe(60_000);
  });
});
