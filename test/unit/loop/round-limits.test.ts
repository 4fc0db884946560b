/** A round at its limits: parallelism with late approvals, stale deadlines, a budget passed mid-round, question timeouts. */
import type { ToolSpec } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { advance, initialState, type LoopConfig } from "../../../durable-objects/conversation/core/index.js";
import { NOW } from "./advance-helpers.js";
import { calls, ok, only, spec, TOOLS } from "./fixtures.js";

const QUESTION: ToolSpec = { ...spec("question", { question: { type: "string" } }), kind: "builtin" };

function round(config: Partial<LoopConfig>, tools: ToolSpec[], ...list: [string, unknown, string][]) {
  const a = advance(
    initialState("conv-1", "pi-1", config),
    { type: "user_message", message_id: "m1", text: "go", tools },
    NOW,
  );
  return advance(a.state, { type: "llm_response", call_id: a.state.run!.awaiting_llm!, turn: calls(...list) }, NOW);
}

describe("round: limits", () => {
  it("a call approved while max_parallel calls run waits for a free slot", () => {
    const a = round(
      { max_parallel: 2, policies: { bash: "requires_approval" } },
      TOOLS,
      ["read", { path: "/a" }, "c1"],
      ["read", { path: "/b" }, "c2"],
      ["bash", { command: "x" }, "c3"],
    );
    expect(only(a.effects, "dispatch_tool").map((d) => d.tool_call_id)).toEqual(["c1", "c2"]);
    const b = advance(a.state, { type: "approval", tool_call_id: "c3", approve: true }, NOW);
    expect(only(b.effects, "dispatch_tool")).toEqual([]);
    const c = advance(
      b.state,
      { type: "tool_result", tool_call_id: "c1", request_id: "m1.1.0", outcome: ok("read", "a") },
      NOW,
    );
    expect(only(c.effects, "dispatch_tool").map((d) => d.tool_call_id)).toEqual(["c3"]);
  });

  it("an approval deadline blocks the call without clearing a tool deadline it never had", () => {
    const a = round({ policies: { bash: "requires_approval" } }, TOOLS, ["bash", { command: "x" }, "c1"]);
    const r = advance(a.state, { type: "deadline", key: "approval:m1.1.0" }, NOW + 3_600_000);
    expect(only(r.effects, "clear_deadline")).toEqual([]);
    expect(only(r.effects, "record_denial")).toMatchObject([{ decided_by: "timeout" }]);
  });

  it("a device tool that happens to be named 'question' goes to the device", () => {
    const a = round({}, [spec("question", { question: { type: "string" } })], ["question", { question: "?" }, "q1"]);
    expect(only(a.effects, "dispatch_tool")).toMatchObject([{ tool: "question" }]);
  });

  it("a call to 'question' in a conversation without that tool is an unknown tool", () => {
    const a = round({}, TOOLS, ["question", { question: "?" }, "q1"]);
    expect(a.state.messages.at(-1)!.content).toMatch(/^Error: Tool 'question' not found\./);
  });

  it("a question past its deadline tells the model exactly that", () => {
    const a = round({}, [QUESTION], ["question", { question: "?" }, "q1"]);
    const r = advance(a.state, { type: "deadline", key: "tool:m1.1.0" }, NOW + 86_400_000);
    const end = only(r.effects, "emit_event").find((e) => e.event.type === "tool_execution_end")!.event;
    expect(end).toMatchObject({
      result: {
        status: "error",
        tool: "question",
        error: "No answer from the user before the question's deadline",
        error_type: "timeout",
      },
    });
    expect(r.state.messages.at(-1)!.content).toBe(
      "Error: No answer from the user before the question's deadline.\nTry again with a shorter timeout or explain to the user.",
    );
  });
});

describe("round: while the model is thinking", () => {
  it("a stale tool deadline, or a cancel, touches no call", () => {
    const a = round({}, TOOLS, ["bash", { command: "x" }, "c1"]);
    const b = advance(
      a.state,
      { type: "tool_result", tool_call_id: "c1", request_id: "m1.1.0", outcome: ok("bash", "done") },
      NOW,
    );
    expect(b.state.run!.round).toBeNull();
    expect(advance(b.state, { type: "deadline", key: "tool:m1.1.0" }, NOW + 60_000).effects).toEqual([]);
    const cancelled = advance(b.state, { type: "cancel" }, NOW);
    expect(only(cancelled.effects, "clear_deadline")).toEqual([]);
    expect(only(cancelled.effects, "cancel_tool")).toEqual([]);
  });

  it("a round that ends after the wall-time budget passed stops the loop, even before the budget deadline fires", () => {
    const a = round({ max_wall_ms: 60_000 }, TOOLS, ["bash", { command: "x" }, "c1"]);
    const r = advance(
      a.state,
      { type: "tool_result", tool_call_id: "c1", request_id: "m1.1.0", outcome: ok("bash", "done") },
      NOW + 61_000,
    );
    expect(only(r.effects, "call_llm")).toEqual([{ type: "call_llm", call_id: "m1.llm2", with_tools: false }]);
    expect(r.state.run!.stopping).toBe("budget");
  });
});
