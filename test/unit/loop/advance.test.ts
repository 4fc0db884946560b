import { describe, expect, it } from "vitest";
import { advance, initialState, type LoopState } from "../../../durable-objects/conversation/core/index.js";
import { calls, fail, ok, only, spec, TOOLS, text } from "./fixtures.js";

const NOW = 1_700_000_000_000;

function start(config = {}) {
  const s0 = initialState("conv-1", "pi-1", config);
  return advance(s0, { type: "user_message", message_id: "msg-1", text: "hello", tools: TOOLS }, NOW);
}

function llmCallId(state: LoopState): string {
  const id = state.run?.awaiting_llm;
  if (!id) throw new Error("not waiting for the LLM");
  return id;
}

describe("loop core: advance()", () => {
  it("starts with an LLM call that offers the tools", () => {
    const { state, effects } = start();
    expect(state.status).toBe("running");
    expect(state.messages).toEqual([{ role: "user", content: "hello" }]);
    expect(only(effects, "call_llm")).toEqual([{ type: "call_llm", call_id: llmCallId(state), with_tools: true }]);
  });

  it("ends the loop on a text answer", () => {
    const a = start();
    const b = advance(a.state, { type: "llm_response", call_id: llmCallId(a.state), turn: text("Hi there") }, NOW);
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
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llmCallId(a.state), turn: calls(["bash", { command: "uname -a" }, "call_1"]) },
      NOW,
    );
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
    const d = advance(
      c.state,
      { type: "llm_response", call_id: llmCallId(c.state), turn: text("It runs Linux pi 6.1") },
      NOW,
    );
    expect(only(d.effects, "reply")[0]!.reply).toMatchObject({
      reply: "It runs Linux pi 6.1",
      iterations: 2,
      tool_calls: [{ id: "call_1", name: "bash", status: "success" }],
    });
  });

  it("chains two tools in order across two rounds", () => {
    let s = start().state;
    let r = advance(
      s,
      { type: "llm_response", call_id: llmCallId(s), turn: calls(["git_log", { max_count: 3 }, "c1"]) },
      NOW,
    );
    const first = only(r.effects, "dispatch_tool")[0]!;
    s = advance(
      r.state,
      { type: "tool_result", tool_call_id: "c1", request_id: first.request_id, outcome: ok("git_log", "commit abc") },
      NOW,
    ).state;
    r = advance(
      s,
      { type: "llm_response", call_id: llmCallId(s), turn: calls(["read", { path: "main.go" }, "c2"]) },
      NOW,
    );
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
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llmCallId(a.state), turn: calls(["git_status", {}, "c1"]) },
      NOW,
    );
    expect(only(b.effects, "dispatch_tool")).toHaveLength(0);
    const toolMsg = b.state.messages.at(-1) as { role: string; content: string };
    expect(toolMsg.role).toBe("tool");
    expect(toolMsg.content).toContain("Tool 'git_status' not found. Available tools: bash, read, git_log.");
    expect(only(b.effects, "call_llm")).toHaveLength(1);
  });

  it("validates arguments before dispatch and tells the model the required and optional fields", () => {
    const a = start();
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llmCallId(a.state), turn: calls(["read", { limit: 3 }, "c1"]) },
      NOW,
    );
    expect(only(b.effects, "dispatch_tool")).toHaveLength(0);
    const content = (b.state.messages.at(-1) as { content: string }).content;
    expect(content).toContain("missing 'path'");
    expect(content).toContain("Required: [path]");
    expect(content).toContain("Optional: [offset, limit]");
  });

  it("refuses arguments that are not JSON", () => {
    const a = start();
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llmCallId(a.state), turn: calls(["bash", "{command: ls"]) },
      NOW,
    );
    expect(only(b.effects, "dispatch_tool")).toHaveLength(0);
    expect((b.state.messages.at(-1) as { content: string }).content).toMatch(/not valid JSON/);
  });

  it("stops at max_iterations with one last call without tools, and the reply says why", () => {
    let s = start({ max_iterations: 10 }).state;
    let dispatched = 0;
    for (let i = 0; i < 10; i++) {
      const r = advance(
        s,
        { type: "llm_response", call_id: llmCallId(s), turn: calls(["bash", { command: `echo ${i}` }, `c${i}`]) },
        NOW,
      );
      const d = only(r.effects, "dispatch_tool")[0]!;
      dispatched++;
      const after = advance(
        r.state,
        { type: "tool_result", tool_call_id: d.tool_call_id, request_id: d.request_id, outcome: ok("bash", `${i}`) },
        NOW,
      );
      s = after.state;
      const next = only(after.effects, "call_llm")[0]!;
      expect(next.with_tools).toBe(i < 9);
    }
    expect(dispatched).toBe(10);
    // The model tries yet another tool call; the loop does not run it.
    const end = advance(
      s,
      {
        type: "llm_response",
        call_id: llmCallId(s),
        turn: { content: "Done so far.", toolCalls: [{ id: "x", name: "bash", arguments: "{}" }] },
      },
      NOW,
    );
    expect(only(end.effects, "dispatch_tool")).toHaveLength(0);
    const reply = only(end.effects, "reply")[0]!.reply;
    expect(reply.stop_reason).toBe("max_iterations");
    expect(reply.reply).toContain("limit of 10 tool rounds");
    expect(reply.iterations).toBe(11);
  });

  it("stops after tool_error_limit consecutive all-failed rounds", () => {
    let s = start({ tool_error_limit: 3 }).state;
    for (let i = 0; i < 3; i++) {
      const r = advance(
        s,
        { type: "llm_response", call_id: llmCallId(s), turn: calls(["bash", { command: "false" }, `c${i}`]) },
        NOW,
      );
      const d = only(r.effects, "dispatch_tool")[0]!;
      s = advance(
        r.state,
        {
          type: "tool_result",
          tool_call_id: d.tool_call_id,
          request_id: d.request_id,
          outcome: fail("bash", "exit 1"),
        },
        NOW,
      ).state;
    }
    expect(s.run?.stopping).toBe("tool_errors");
    const end = advance(s, { type: "llm_response", call_id: llmCallId(s), turn: text("Everything failed.") }, NOW);
    expect(only(end.effects, "reply")[0]!.reply).toMatchObject({ stop_reason: "tool_errors", status: "completed" });
  });

  it("a success resets the consecutive error count", () => {
    let s = start({ tool_error_limit: 2 }).state;
    const outcomes = [fail("bash", "x"), ok("bash", "y"), fail("bash", "z")];
    outcomes.forEach((outcome, i) => {
      const r = advance(
        s,
        { type: "llm_response", call_id: llmCallId(s), turn: calls(["bash", { command: "c" }, `c${i}`]) },
        NOW,
      );
      const d = only(r.effects, "dispatch_tool")[0]!;
      s = advance(
        r.state,
        { type: "tool_result", tool_call_id: d.tool_call_id, request_id: d.request_id, outcome },
        NOW,
      ).state;
    });
    expect(s.run?.stopping).toBeNull();
  });

  it("dispatches parallel calls up to max_parallel and appends results in call order", () => {
    const a = start({ max_parallel: 2 });
    const b = advance(
      a.state,
      {
        type: "llm_response",
        call_id: llmCallId(a.state),
        turn: calls(
          ["bash", { command: "a" }, "c1"],
          ["bash", { command: "b" }, "c2"],
          ["bash", { command: "c" }, "c3"],
        ),
      },
      NOW,
    );
    const first = only(b.effects, "dispatch_tool");
    expect(first.map((d) => d.tool_call_id)).toEqual(["c1", "c2"]);
    // c2 finishes first: c3 may start, and nothing is appended yet.
    const c = advance(
      b.state,
      { type: "tool_result", tool_call_id: "c2", request_id: first[1]!.request_id, outcome: ok("bash", "B") },
      NOW,
    );
    const third = only(c.effects, "dispatch_tool");
    expect(third.map((d) => d.tool_call_id)).toEqual(["c3"]);
    expect(only(c.effects, "call_llm")).toHaveLength(0);
    const d = advance(
      c.state,
      { type: "tool_result", tool_call_id: "c3", request_id: third[0]!.request_id, outcome: ok("bash", "C") },
      NOW,
    );
    const e = advance(
      d.state,
      { type: "tool_result", tool_call_id: "c1", request_id: first[0]!.request_id, outcome: ok("bash", "A") },
      NOW,
    );
    const toolContents = e.state.messages
      .filter((m) => m.role === "tool")
      .map((m) => (m as { content: string }).content);
    expect(toolContents).toEqual(["A", "B", "C"]);
    expect(only(e.effects, "call_llm")).toHaveLength(1);
  });

  it("ignores a duplicate or late result: a tool result counts once", () => {
    const a = start();
    const b = advance(
      a.state,
      {
        type: "llm_response",
        call_id: llmCallId(a.state),
        turn: calls(["bash", { command: "a" }, "c1"], ["bash", { command: "b" }, "c2"]),
      },
      NOW,
    );
    const [d1] = only(b.effects, "dispatch_tool");
    const c = advance(
      b.state,
      { type: "tool_result", tool_call_id: "c1", request_id: d1!.request_id, outcome: ok("bash", "first") },
      NOW,
    );
    const dup = advance(
      c.state,
      { type: "tool_result", tool_call_id: "c1", request_id: d1!.request_id, outcome: ok("bash", "second") },
      NOW,
    );
    expect(dup.effects).toEqual([]);
    expect(dup.state).toEqual(c.state);
    const wrongRequest = advance(
      c.state,
      { type: "tool_result", tool_call_id: "c2", request_id: "someone-else", outcome: ok("bash", "x") },
      NOW,
    );
    expect(wrongRequest.effects).toEqual([]);
  });

  it("turns a passed deadline into a timeout result and cancels the device command", () => {
    const a = start();
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llmCallId(a.state), turn: calls(["bash", { command: "sleep 600" }, "c1"]) },
      NOW,
    );
    const key = only(b.effects, "set_deadline")[0]!.key;
    const c = advance(b.state, { type: "deadline", key }, NOW + 50_000);
    expect(only(c.effects, "cancel_tool")).toHaveLength(1);
    const msg = (c.state.messages.at(-1) as { content: string }).content;
    expect(msg).toContain("timed out");
    expect(msg).toContain("Command: 'sleep 600'");
    expect(only(c.effects, "call_llm")).toHaveLength(1);
  });

  it("ignores an LLM answer to a call it is not waiting for", () => {
    const a = start();
    const b = advance(a.state, { type: "llm_response", call_id: "stale", turn: text("late") }, NOW);
    expect(b.effects).toEqual([]);
    expect(b.state.status).toBe("running");
  });

  it("ends with a failed status when the model cannot be reached", () => {
    const a = start();
    const b = advance(a.state, { type: "llm_failed", call_id: llmCallId(a.state), error: "HTTP 503" }, NOW);
    expect(b.state.status).toBe("failed");
    expect(only(b.effects, "reply")[0]!.reply).toMatchObject({ status: "failed", stop_reason: "llm_error" });
  });

  it("cancels a running loop and its in-flight tool calls", () => {
    const a = start();
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llmCallId(a.state), turn: calls(["bash", { command: "sleep 9" }, "c1"]) },
      NOW,
    );
    const c = advance(b.state, { type: "cancel" }, NOW);
    expect(c.state.status).toBe("cancelled");
    expect(only(c.effects, "cancel_tool")).toHaveLength(1);
    expect(only(c.effects, "reply")[0]!.reply.status).toBe("cancelled");
  });

  it("queues a message that arrives mid-run and starts it after the reply", () => {
    const a = start();
    const b = advance(a.state, { type: "user_message", message_id: "msg-2", text: "second", tools: TOOLS }, NOW);
    expect(only(b.effects, "call_llm")).toHaveLength(0);
    const c = advance(b.state, { type: "llm_response", call_id: llmCallId(b.state), turn: text("first answer") }, NOW);
    expect(only(c.effects, "reply")[0]!.reply.message_id).toBe("msg-1");
    expect(c.state.run?.message_id).toBe("msg-2");
    expect(only(c.effects, "call_llm")).toHaveLength(1);
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
    const b = advance(
      a.state,
      {
        type: "llm_response",
        call_id: llmCallId(a.state),
        turn: calls(["bash", { command: "sleep 1", timeout_ms: 999_999 }]),
      },
      NOW,
    );
    expect(only(b.effects, "dispatch_tool")[0]!.timeout_ms).toBe(60_000);
  });

  it("does not mutate the previous state", () => {
    const a = start();
    const snapshot = structuredClone(a.state);
    advance(
      a.state,
      { type: "llm_response", call_id: llmCallId(a.state), turn: calls(["bash", { command: "x" }]) },
      NOW,
    );
    expect(a.state).toEqual(snapshot);
  });

  it("never changes a state it was given, through a whole run (each input is deep-frozen)", () => {
    // advance() copies only what it changes; a frozen input makes any write to shared parts throw.
    const step = (s: LoopState, e: Parameters<typeof advance>[1]) => {
      const snapshot = structuredClone(s);
      const next = advance(deepFreeze(s), e, NOW);
      expect(s).toEqual(snapshot);
      return next;
    };
    let r = step(initialState("c", "pi-1", { max_parallel: 1 }), {
      type: "user_message",
      message_id: "m1",
      text: "go",
      tools: TOOLS,
    });
    r = step(r.state, { type: "user_message", message_id: "m2", text: "queued", tools: TOOLS });
    r = step(r.state, {
      type: "llm_response",
      call_id: llmCallId(r.state),
      turn: calls(["bash", { command: "a" }, "c1"], ["bash", { command: "b" }, "c2"]),
    });
    const [first] = only(r.effects, "dispatch_tool");
    r = step(r.state, { type: "tool_progress", tool_call_id: "c1", partial: [{ type: "text", text: "half" }] });
    r = step(r.state, {
      type: "tool_result",
      tool_call_id: "c1",
      request_id: first!.request_id,
      outcome: ok("bash", "A"),
    });
    const [second] = only(r.effects, "dispatch_tool");
    r = step(r.state, { type: "deadline", key: `tool:${second!.request_id}` });
    expect(r.state.messages.filter((m) => m.role === "tool")).toHaveLength(2);
    r = step(r.state, { type: "llm_response", call_id: llmCallId(r.state), turn: text("done") });
    expect(r.state.run?.message_id).toBe("m2");
    r = step(r.state, { type: "cancel" });
    expect(r.state.replies.map((x) => x.status)).toEqual(["completed", "cancelled"]);
  });
});

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
