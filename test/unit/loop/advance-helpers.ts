/** The advance() tests' common start: a run waiting on its first LLM call, and that call's id. */
import {
  advance,
  initialState,
  type LlmTurn,
  type LoopState,
} from "../../../durable-objects/conversation/core/index.js";
import { TOOLS } from "./fixtures.js";

export const NOW = 1_700_000_000_000;

export function start(config = {}) {
  const s0 = initialState("conv-1", "pi-1", config);
  return advance(s0, { type: "user_message", message_id: "msg-1", text: "hello", tools: TOOLS }, NOW);
}

export function llmCallId(state: LoopState): string {
  const id = state.run?.awaiting_llm;
  if (!id) throw new Error("not waiting for the LLM");
  return id;
}

/** The model answers the call `state` waits on with `turn`, at NOW. */
export function answer(state: LoopState, turn: LlmTurn) {
  return advance(state, { type: "llm_response", call_id: llmCallId(state), turn }, NOW);
}
