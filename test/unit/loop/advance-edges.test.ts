/**
 * Events advance() must not take for a call they do not belong to: a late result of an earlier call that had the
 * same id as one running now, and an MCP server's question for the loop's own question. Each test names the
 * mutant of advance.ts that it fails with.
 */
import type { ToolSpec } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { advance, initialState, type LoopState } from "../../../durable-objects/conversation/core/index.js";
import { answer, NOW, start } from "./advance-helpers.js";
import { calls, ok, only, spec } from "./fixtures.js";

const respond = (state: LoopState, ...list: [string, unknown, string][]) => answer(state, calls(...list));

describe("a late result", () => {
  it("of an earlier call is not taken for a running call that reuses its id", () => {
    // Mutant: `call.request_id === event.request_id` → `true` (the late_tool_result case) settled the running call.
    const a = start();
    const first = respond(a.state, ["bash", { command: "one" }, "c1"]);
    const old = only(first.effects, "dispatch_tool")[0]!.request_id;
    const ended = advance(
      first.state,
      { type: "deadline", key: only(first.effects, "set_deadline")[0]!.key },
      NOW + 60_000,
    );
    // The model calls again, with the same id: a new request.
    const again = respond(ended.state, ["bash", { command: "two" }, "c1"]);
    const running = again.state.run!.round![0]!;
    expect(running.request_id).not.toBe(old);
    const late = advance(
      again.state,
      { type: "late_tool_result", tool_call_id: "c1", request_id: old, outcome: ok("bash", "one done") },
      NOW,
    );
    expect(late.state.run!.round![0]).toMatchObject({ state: "dispatched", outcome: null });
    expect(only(late.effects, "call_llm")).toEqual([]);
    expect(late.state.late_results).toHaveLength(1);
  });
});

describe("an MCP server's question", () => {
  it("is not shown for the loop's own question call", () => {
    // Mutant: `call.kind === "builtin" || call.kind === "device"` → `true`.
    const question: ToolSpec = { ...spec("question", { question: { type: "string" } }, ["question"]), kind: "builtin" };
    const a = advance(
      initialState("conv-1", "pi-1"),
      { type: "user_message", message_id: "m1", text: "go", tools: [question] },
      NOW,
    );
    const asked = respond(a.state, ["question", { question: "Which?" }, "q1"]);
    expect(asked.state.run!.round![0]).toMatchObject({ kind: "question", state: "dispatched" });
    const out = advance(
      asked.state,
      { type: "server_question", tool_call_id: "q1", question: "[srv] Sure?", options: [] },
      NOW,
    );
    expect(out.effects).toEqual([]);
  });
});
