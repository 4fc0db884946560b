import { viewConversation } from "../../scripted-llm/conversation-view.js";
import type { ScriptedLlm } from "../../scripted-llm/server.js";

/**
 * When the scripted model received each request for the message whose text is `userText`, in
 * order (ms since the epoch). The gap between two consecutive requests is one whole loop step:
 * model answer → dispatch → device → result → next model call.
 */
export function requestTimes(llm: ScriptedLlm, userText: string): number[] {
  return forMessage(llm, userText).map((r) => r.received_ms);
}

/** When the scripted model had finished writing each answer for that message (ms since the epoch). */
export function answerTimes(llm: ScriptedLlm, userText: string): number[] {
  return forMessage(llm, userText).map((r) => r.answered_ms ?? Number.NaN);
}

function forMessage(llm: ScriptedLlm, userText: string) {
  return llm.requests().filter((r) => viewConversation(r.body).user === userText);
}

/** The request bodies for that message, in order. */
export function requestBodies(llm: ScriptedLlm, userText: string): unknown[] {
  return forMessage(llm, userText).map((r) => r.body);
}

export const gaps = (times: number[]): number[] => times.slice(1).map((t, i) => t - times[i]!);
