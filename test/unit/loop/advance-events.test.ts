/** advance(): which events apply in which state, and the exact messages and events each one leaves. */
import { describe, expect, it } from "vitest";
import {
  advance,
  initialState,
  type LlmTurn,
  type LoopState,
} from "../../../durable-objects/conversation/core/index.js";
import { llmCallId, NOW, start } from "./advance-helpers.js";
import { calls, only, spec, TOOLS } from "./fixtures.js";

const QUESTION = { ...spec("question", { question: { type: "string" } }), kind: "builtin" as const };

function respond(state: LoopState, turn: LlmTurn) {
  return advance(state, { type: "llm_response", call_id: llmCallId(state), turn }, NOW);
}

describe("advance(): the state it starts from", () => {
  it("an idle conversation with nothing in it", () => {
    const s = initialState("c", "a", { max_parallel: 2 });
    expect(s).toMatchObject({
      conversation_id: "c",
      agent_id: "a",
      status: "idle",
      messages: [],
      tools: [],
      run: null,
      queue: [],
      replies: [],
      compaction: null,
    });
    expect(s.config.max_parallel).toBe(2);
  });
});

describe("advance(): model answers", () => {
  it("a failure for another call changes nothing; for the awaited one it ends the run", () => {
    const a = start();
    expect(advance(a.state, { type: "llm_failed", call_id: "other", error: "x" }, NOW).effects).toEqual([]);
    const r = advance(a.state, { type: "llm_failed", call_id: llmCallId(a.state), error: "502" }, NOW);
    expect(only(r.effects, "reply")[0]!.reply).toMatchObject({
      status: "failed",
      reply: "The model could not be reached: 502",
      stop_reason: "llm_error",
    });
  });

  it("records the answer's end event and an empty answer as empty text", () => {
    const a = start();
    const r = respond(a.state, { content: null, toolCalls: [] });
    expect(only(r.effects, "emit_event")[0]!.event).toEqual({
      type: "message_end",
      iteration: 1,
      content: null,
      tool_calls: 0,
    });
    expect(r.state.messages.at(-1)).toEqual({ role: "assistant", content: "" });
    expect(only(r.effects, "reply")[0]!.reply.reply).toBe("");
  });

  it("stores the model's tool calls as an assistant message in the OpenAI shape", () => {
    const r = respond(start().state, calls(["bash", { command: "ls" }, "c1"]));
    expect(r.state.messages.at(-1)).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }],
    });
  });

  it("a malformed call: the empty reply is kept, a correction is asked with tools, then the run fails", () => {
    const a = start();
    const b = respond(a.state, { content: null, toolCalls: [], malformedToolCall: "no closing brace" });
    expect(b.state.messages.slice(-2)).toEqual([
      { role: "assistant", content: "" },
      { role: "user", content: expect.stringContaining("Available tools: bash, read, git_log.") },
    ]);
    expect(only(b.effects, "call_llm")).toEqual([{ type: "call_llm", call_id: "msg-1.llm2", with_tools: true }]);
    const c = respond(b.state, { content: "??", toolCalls: [], malformedToolCall: "still bad" });
    expect(only(c.effects, "reply")[0]!.reply).toMatchObject({
      status: "failed",
      reply: "The model wrote an invalid tool call twice: still bad",
      stop_reason: "invalid_tool_call",
    });
  });

  it("a malformed call while stopping is taken as the final answer", () => {
    const a = start({ max_tokens: 10 });
    const b = respond(a.state, {
      ...calls(["bash", { command: "x" }, "c1"]),
      usage: { prompt_tokens: 20, completion_tokens: 0 },
    });
    expect(b.state.messages.at(-2)).toEqual({ role: "assistant", content: "" });
    const c = respond(b.state, { content: "summary", toolCalls: [], malformedToolCall: "x" });
    expect(only(c.effects, "reply")[0]!.reply.stop_reason).toBe("budget");
  });
});

describe("advance(): events for calls", () => {
  function withQuestion() {
    const a = advance(
      initialState("conv-1", "pi-1"),
      { type: "user_message", message_id: "m1", text: "go", tools: [...TOOLS, QUESTION] },
      NOW,
    );
    return respond(a.state, calls(["question", { question: "?" }, "q1"], ["bash", { command: "x" }, "c2"])).state;
  }

  it("an answer goes to a waiting question only", () => {
    const s = withQuestion();
    expect(advance(s, { type: "answer", tool_call_id: "c2", text: "no" }, NOW).effects).toEqual([]);
    expect(advance(s, { type: "answer", tool_call_id: "zz", text: "no" }, NOW).effects).toEqual([]);
    const answered = advance(s, { type: "answer", tool_call_id: "q1", text: "yes" }, NOW).state;
    expect(advance(answered, { type: "answer", tool_call_id: "q1", text: "again" }, NOW).effects).toEqual([]);
  });

  it("an MCP server's question is shown for its running built-in (remote) or device call only", () => {
    const remote = { ...spec("srv__ask", {}), kind: "builtin" as const };
    const a = advance(
      initialState("conv-1", "pi-1"),
      { type: "user_message", message_id: "m1", text: "go", tools: [...TOOLS, remote] },
      NOW,
    );
    const s = respond(a.state, calls(["srv__ask", {}, "r1"], ["bash", { command: "x" }, "c2"])).state;
    const ask = { type: "server_question" as const, question: "[srv] Sure?", options: ["yes", "no"] };
    expect(advance(s, { ...ask, tool_call_id: "r1" }, NOW).effects).toEqual([
      {
        type: "emit_event",
        event: { type: "question", toolCallId: "r1", question: "[srv] Sure?", options: ["yes", "no"] },
      },
    ]);
    const noOptions = advance(s, { ...ask, tool_call_id: "r1", options: [] }, NOW).effects;
    expect(noOptions).toEqual([
      { type: "emit_event", event: { type: "question", toolCallId: "r1", question: "[srv] Sure?" } },
    ]);
    // A device MCP server's question, during its device call.
    expect(advance(s, { ...ask, tool_call_id: "c2" }, NOW).effects).toEqual([
      {
        type: "emit_event",
        event: { type: "question", toolCallId: "c2", question: "[srv] Sure?", options: ["yes", "no"] },
      },
    ]);
    // An unknown call, a call that has ended: nothing to show.
    expect(advance(s, { ...ask, tool_call_id: "zz" }, NOW).effects).toEqual([]);
    const ended = advance(
      s,
      {
        type: "tool_result",
        tool_call_id: "r1",
        request_id: s.run!.round!.find((c) => c.id === "r1")!.request_id,
        outcome: { status: "success", tool: "srv__ask", result: "", stderr: "", exit_code: 0, elapsed_ms: 1 },
      },
      NOW,
    ).state;
    expect(advance(ended, { ...ask, tool_call_id: "r1" }, NOW).effects).toEqual([]);
  });

  it("progress of a running call is passed on; of an unknown or finished call it is not", () => {
    const s = withQuestion();
    const r = advance(s, { type: "tool_progress", tool_call_id: "c2", partial: "50%" }, NOW);
    expect(r.effects).toEqual([
      {
        type: "emit_event",
        event: { type: "tool_execution_update", toolCallId: "c2", toolName: "bash", partial: "50%" },
      },
    ]);
    expect(advance(s, { type: "tool_progress", tool_call_id: "zz", partial: "x" }, NOW).effects).toEqual([]);
    const done = advance(
      s,
      {
        type: "tool_result",
        tool_call_id: "c2",
        request_id: "m1.1.1",
        outcome: { status: "success", tool: "bash", result: "", stderr: "", exit_code: 0, elapsed_ms: 0 },
      },
      NOW,
    ).state;
    expect(advance(done, { type: "tool_progress", tool_call_id: "c2", partial: "x" }, NOW).effects).toEqual([]);
    expect(advance(start().state, { type: "tool_progress", tool_call_id: "c2", partial: "x" }, NOW).effects).toEqual(
      [],
    );
  });
});

describe("advance(): cancel and direct calls", () => {
  it("cancel without a run changes nothing; without a reason it says only Cancelled", () => {
    expect(advance(initialState("c", "a"), { type: "cancel" }, NOW).effects).toEqual([]);
    const r = advance(start().state, { type: "cancel" }, NOW);
    expect(only(r.effects, "reply")[0]!.reply.reply).toBe("Cancelled.");
  });

  it("cancel answers every queued message as cancelled", () => {
    let s = start().state;
    s = advance(s, { type: "user_message", message_id: "q1", text: "later", tools: TOOLS }, NOW).state;
    const r = advance(s, { type: "cancel", reason: "stop" }, NOW);
    expect(only(r.effects, "reply").map((e) => e.reply)).toEqual([
      expect.objectContaining({ message_id: "msg-1", status: "cancelled" }),
      { message_id: "q1", status: "cancelled", reply: null, stop_reason: "cancel", tool_calls: [], iterations: 0 },
    ]);
    expect(r.state.queue).toEqual([]);
  });

  it("a direct call without rules of its own keeps the conversation's rules", () => {
    const rule = {
      rule_id: "r1",
      effect: "allow" as const,
      agent_id: null,
      tool: "bash",
      pattern: null,
      expires_at: null,
    };
    const s = { ...initialState("c", "pi-1"), approval_rules: [rule] };
    const call = { id: "x", name: "bash", arguments: '{"command":"ls"}' };
    const r = advance(s, { type: "tool_call", message_id: "d1", call, tools: TOOLS }, NOW);
    expect(r.state.approval_rules).toEqual([rule]);
  });
});

describe("advance(): events without a run", () => {
  it("a model answer, a model failure or a tool result for a conversation with no run changes nothing", () => {
    const idle = initialState("c", "pi-1");
    const outcome = { status: "success" as const, tool: "bash", result: "", stderr: "", exit_code: 0, elapsed_ms: 0 };
    expect(
      advance(idle, { type: "llm_response", call_id: "x", turn: { content: "hi", toolCalls: [] } }, NOW).effects,
    ).toEqual([]);
    expect(advance(idle, { type: "llm_failed", call_id: "x", error: "e" }, NOW).effects).toEqual([]);
    expect(advance(idle, { type: "tool_result", tool_call_id: "c1", request_id: "r", outcome }, NOW).effects).toEqual(
      [],
    );
  });

  it("readable tool calls run even when the model also wrote an unreadable one", () => {
    const r = respond(start().state, { ...calls(["bash", { command: "ls" }, "c1"]), malformedToolCall: "half a call" });
    expect(only(r.effects, "dispatch_tool")).toMatchObject([{ tool_call_id: "c1" }]);
  });
});
