/** The loop keeps a stored image's reference beside its tool result's text, and in the user's message. */
import type { ImageRef, ToolOutcome } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { advance, initialState, type LoopState } from "../../../durable-objects/conversation/core/index.js";
import { TOOLS } from "../loop/fixtures.js";

const NOW = 1_700_000_000_000;
const ref: ImageRef = {
  type: "image",
  media_type: "image/png",
  sha256: "a".repeat(64),
  bytes: 5000,
  width: 800,
  height: 600,
  url: `/v1/conversations/conv-1/images/${"a".repeat(64)}`,
};

function callTool(state: LoopState) {
  const call_id = state.run!.awaiting_llm!;
  const turn = { content: null, toolCalls: [{ id: "call_1", name: TOOLS[0]!.name, arguments: '{"command":"x"}' }] };
  return advance(state, { type: "llm_response", call_id, turn }, NOW);
}

describe("images in the loop's history", () => {
  it("a tool result's image is kept as a reference on its tool message, the text naming it", () => {
    let step = advance(
      initialState("conv-1", "pi-1"),
      { type: "user_message", message_id: "m1", text: "look", tools: TOOLS, images: [ref] },
      NOW,
    );
    expect(step.state.messages[0]).toEqual({ role: "user", content: "look", images: [ref] });
    step = callTool(step.state);
    const dispatch = step.effects.find((e) => e.type === "dispatch_tool")!;
    const outcome: ToolOutcome = {
      status: "success",
      tool: TOOLS[0]!.name,
      result: "",
      stderr: "",
      exit_code: 0,
      elapsed_ms: 3,
      content: [{ type: "text", text: "Screenshot" }, ref],
    };
    step = advance(
      step.state,
      {
        type: "tool_result",
        tool_call_id: "call_1",
        request_id: (dispatch as { request_id: string }).request_id,
        outcome,
      },
      NOW,
    );
    expect(step.state.messages.at(-1)).toEqual({
      role: "tool",
      tool_call_id: "call_1",
      content: "Screenshot\n[image image/png 800x600, 5000 bytes]",
      images: [ref],
    });
    // The event clients get carries the reference, not bytes.
    const end = step.effects.find((e) => e.type === "emit_event" && e.event.type === "tool_execution_end");
    expect(JSON.stringify(end)).toContain(ref.url);
  });
});
