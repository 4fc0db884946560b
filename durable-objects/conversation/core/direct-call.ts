import type { ToolSpec } from "@edgeloop/protocol";
import { startRound } from "./round.js";
import { beginRun } from "./run.js";
import type { Effect, LoopState } from "./types.js";

/**
 * A tool call made by a caller rather than the model (an MCP client's `tools/call` on the fleet):
 * a run of one round with one call. It takes the same path as a model's call (validation, the
 * before_tool_call hook, the approval policy, dispatch through the outbox, deadlines, the
 * persist hook, events) and its result ends the run as the reply (run.ts `finishDirect`), with no
 * model call.
 */
export function startDirectRun(
  state: LoopState,
  effects: Effect[],
  message_id: string,
  call: { id: string; name: string; arguments: string },
  tools: ToolSpec[],
  now: number,
): void {
  if (state.messages.length === 0 && state.config.system_prompt)
    state.messages.push({ role: "system", content: state.config.system_prompt });
  const text = `[edgeloop] An MCP client called the tool '${call.name}' directly.`;
  // The history stays well formed for a model that may read it later: a user turn, then the call.
  state.messages.push({ role: "user", content: text });
  const run = beginRun(state, effects, message_id, text, tools, now);
  run.direct = true;
  run.iteration = 1;
  state.messages.push({
    role: "assistant",
    content: null,
    tool_calls: [{ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }],
  });
  startRound(state, effects, run, [call], now);
}
