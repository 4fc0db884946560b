import { viewConversation } from "../../scripted-llm/conversation-view.js";
import type { ScriptedLlm } from "../../scripted-llm/server.js";

/**
 * When the scripted model received each request for the message whose text is `userText`, in
 * order (ms since the epoch). The gap between two consecutive requests is one whole loop step:
 * model answer → dispatch → device → result → next model call.
 */
export function requestTimes(llm: ScriptedLlm, userText: string): number[] {
  return llm
    .requests()
    .filter((r) => viewConversation(r.body).user === userText)
    .map((r) => Date.parse(r.at));
}

/** The request bodies for that message, in order. */
export function requestBodies(llm: ScriptedLlm, userText: string): unknown[] {
  return llm
    .requests()
    .filter((r) => viewConversation(r.body).user === userText)
    .map((r) => r.body);
}

export const gaps = (times: number[]): number[] => times.slice(1).map((t, i) => t - times[i]!);
