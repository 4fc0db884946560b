import type { TurnChoice } from "./choose-turn.js";
import type { ConversationView } from "./conversation-view.js";
import type { ScriptError, ScriptRule } from "./script.js";

/**
 * What the scripted model keeps between requests (the script, the requests it got, failures
 * served) and what it records of each request. Shared by server.ts and the answer handlers.
 */

/**
 * One model request as received. `received_ms` / `answered_ms` are sub-millisecond clock readings
 * (ms since the epoch) of when its body had arrived and when the whole answer had been written,
 * for benchmarks that time the gaps between model calls. `path` and `headers` are what a client
 * sent them to (an AI Gateway's URL shape, its auth headers).
 */
export type ScriptedRequest = {
  at: string;
  body: unknown;
  received_ms: number;
  answered_ms?: number;
  /** "openai" (Chat Completions) or "anthropic" (Messages API) */
  format: "openai" | "anthropic";
  path: string;
  headers: Record<string, string>;
};

export type ServerState = {
  rules: ScriptRule[];
  requests: ScriptedRequest[];
  /** failures served so far per scripted turn, for `error.times` */
  failures: Map<string, number>;
  responses: number;
  /** cache prefixes (Anthropic format) written so far: a repeat is reported as a cache read */
  cachePrefixes: Set<string>;
};

/** The scripted error this request gets, counting it against `times`; null to answer normally. */
export function failureToServe(state: ServerState, choice: TurnChoice, view: ConversationView): ScriptError | null {
  const error = choice.turn.error;
  if (!error || choice.kind !== "scripted") return null;
  const key = `${choice.ruleIndex}:${choice.turnIndex}:${view.user}`;
  const served = state.failures.get(key) ?? 0;
  if (error.times !== undefined && served >= error.times) return null;
  state.failures.set(key, served + 1);
  return error;
}
