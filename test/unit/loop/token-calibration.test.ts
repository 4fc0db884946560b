/** The estimate of a model call's input, and how the provider's reported prompt tokens correct it. */
import { describe, expect, it } from "vitest";
import { estimateTokens, messageTokens, toolsTokens } from "../../../durable-objects/conversation/core/compaction.js";
import {
  advance,
  type ChatMessage,
  initialState,
  type LlmTurn,
  type LoopState,
} from "../../../durable-objects/conversation/core/index.js";
import { TOOLS, text } from "./fixtures.js";

const NOW = 1_700_000_000_000;

/** A run waiting for its first model call, in a conversation with a window (so the call is estimated). */
function waiting(state = initialState("conv-1", "pi-1", { context_tokens: 100_000 }), n = 1): LoopState {
  return advance(state, { type: "user_message", message_id: `m${n}`, text: `turn ${n}`, tools: TOOLS }, NOW).state;
}

/** Answer the waiting model call with `usage`. */
function answer(state: LoopState, usage: LlmTurn["usage"]): LoopState {
  return advance(
    state,
    { type: "llm_response", call_id: state.run!.awaiting_llm!, turn: { ...text("ok"), usage } },
    NOW,
  ).state;
}

describe("token estimate", () => {
  it("is the view's messages plus the tool list for a call with tools", () => {
    const state = waiting();
    expect(state.run!.estimate).toBe(estimateTokens(state.messages) + toolsTokens(TOOLS));
    expect(toolsTokens(TOOLS)).toBe(
      Math.ceil(JSON.stringify(TOOLS.map((t) => [t.name, t.description, t.parameters])).length / 4),
    );
  });

  it("counts a message without text as its overhead, and a tool message's text like any other", () => {
    expect(messageTokens({ role: "assistant", content: null })).toBe(4);
    expect(messageTokens({ role: "tool", tool_call_id: "c", content: "a".repeat(9) })).toBe(3 + 4);
    // A message's estimate is kept with it: asking again gives the same number.
    const m: ChatMessage = {
      role: "assistant",
      content: "ab",
      tool_calls: [{ id: "c", type: "function", function: { name: "n", arguments: "{}" } }],
    };
    expect(messageTokens(m)).toBe(Math.ceil((2 + 1 + 2 + 24) / 4) + 4);
    expect(messageTokens(m)).toBe(Math.ceil((2 + 1 + 2 + 24) / 4) + 4);
  });

  it("is not made without a context window", () => {
    const state = waiting(initialState("conv-1", "pi-1", { context_tokens: null }));
    expect(state.run!.estimate).toBeUndefined();
    expect(answer(state, { prompt_tokens: 500, completion_tokens: 1 }).token_ratio).toBeUndefined();
  });
});

describe("token calibration", () => {
  it("takes the first report's ratio to the estimate as it is", () => {
    const state = waiting();
    const estimate = state.run!.estimate!;
    expect(answer(state, { prompt_tokens: Math.round(estimate * 1.5), completion_tokens: 1 }).token_ratio).toBeCloseTo(
      Math.round(estimate * 1.5) / estimate,
      10,
    );
  });

  it("then moves halfway from the ratio so far to each new one", () => {
    let state = waiting();
    state = answer(state, { prompt_tokens: state.run!.estimate! * 2, completion_tokens: 1 });
    expect(state.token_ratio).toBe(2);
    state = waiting(state, 2);
    // The second call's estimate is calibrated by the first.
    state = answer(state, { prompt_tokens: state.run!.estimate!, completion_tokens: 1 });
    expect(state.token_ratio).toBe(1.5);
  });

  it("stays between a quarter and four times the estimate", () => {
    let state = waiting();
    state = answer(state, { prompt_tokens: state.run!.estimate! * 100, completion_tokens: 1 });
    expect(state.token_ratio).toBe(4);
    state = waiting(initialState("conv-1", "pi-1", { context_tokens: 100_000 }));
    state = answer(state, { prompt_tokens: 1, completion_tokens: 1 });
    expect(state.token_ratio).toBe(0.25);
  });

  it("ignores a call without usage or with no prompt tokens", () => {
    expect(answer(waiting(), undefined).token_ratio).toBeUndefined();
    expect(answer(waiting(), { prompt_tokens: 0, completion_tokens: 3 }).token_ratio).toBeUndefined();
  });
});
