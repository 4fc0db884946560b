/** A call to a tool that does not exist: the model is told which tools there are; the stored name keeps the protocol's shape. */
import { describe, expect, it } from "vitest";
import { advance, initialState } from "../../../durable-objects/conversation/core/index.js";
import { NOW } from "./advance-helpers.js";
import { calls, only, TOOLS } from "./fixtures.js";

function unknownCall(name: string, tools = TOOLS) {
  const a = advance(initialState("conv-1", "pi-1"), { type: "user_message", message_id: "m1", text: "go", tools }, NOW);
  const b = advance(
    a.state,
    { type: "llm_response", call_id: a.state.run!.awaiting_llm!, turn: calls([name, {}, "c1"]) },
    NOW,
  );
  const end = only(b.effects, "emit_event").find((e) => e.event.type === "tool_execution_end")!.event as {
    result: unknown;
    isError: boolean;
  };
  return { end, state: b.state };
}

describe("a call to an unknown tool", () => {
  it("is a not_found error naming the available tools", () => {
    const { end, state } = unknownCall("reboot");
    expect(end.isError).toBe(true);
    expect(end.result).toEqual({
      status: "error",
      tool: "reboot",
      error: "Tool 'reboot' not found. Available tools: bash, read, git_log.",
      error_type: "not_found",
    });
    expect(state.messages.at(-1)!.content).toBe(
      "Error: Tool 'reboot' not found. Available tools: bash, read, git_log.\nPlease choose an available tool or explain to the user.",
    );
  });

  it("says (none) when the conversation has no tools", () => {
    expect(unknownCall("reboot", []).end.result).toMatchObject({
      error: "Tool 'reboot' not found. Available tools: (none).",
    });
  });

  it("stores an invented name in the protocol's tool-name shape: other characters replaced, 64 at most", () => {
    expect(unknownCall("rm -rf/x").end.result).toMatchObject({
      tool: "rm_-rf_x",
      error: expect.stringContaining("'rm -rf/x'"),
    });
    expect(unknownCall("a".repeat(70)).end.result).toMatchObject({ tool: "a".repeat(64) });
    expect(unknownCall("").end.result).toMatchObject({ tool: "unknown" });
  });
});
