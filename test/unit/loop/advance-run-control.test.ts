/** advance(): stale and failed LLM calls, cancel, queued messages, and that it never changes its input. */
import { describe, expect, it } from "vitest";
import { advance, initialState, type LoopState } from "../../../durable-objects/conversation/core/index.js";
import { answer, llmCallId, NOW, start } from "./advance-helpers.js";
import { calls, ok, only, TOOLS, text } from "./fixtures.js";

describe("loop core: advance()", () => {
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
    const b = answer(a.state, calls(["bash", { command: "sleep 9" }, "c1"]));
    const c = advance(b.state, { type: "cancel" }, NOW);
    expect(c.state.status).toBe("cancelled");
    expect(only(c.effects, "cancel_tool")).toHaveLength(1);
    expect(only(c.effects, "reply")[0]!.reply.status).toBe("cancelled");
  });

  it("queues a message that arrives mid-run and starts it after the reply", () => {
    const a = start();
    const b = advance(a.state, { type: "user_message", message_id: "msg-2", text: "second", tools: TOOLS }, NOW);
    expect(only(b.effects, "call_llm")).toHaveLength(0);
    const c = answer(b.state, text("first answer"));
    expect(only(c.effects, "reply")[0]!.reply.message_id).toBe("msg-1");
    expect(c.state.run?.message_id).toBe("msg-2");
    expect(only(c.effects, "call_llm")).toHaveLength(1);
  });

  it("does not mutate the previous state", () => {
    const a = start();
    const snapshot = structuredClone(a.state);
    answer(a.state, calls(["bash", { command: "x" }]));
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
