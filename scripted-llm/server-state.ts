import type { TurnChoice } from "./choose-turn.js";
import type { ConversationView } from "./conversation-view.js";
import { routeToScope, type Scope } from "./scopes.js";
import type { ScriptError, ScriptRule } from "./script.js";
import type { ScriptedRequest } from "./scripted-request.js";

/**
 * What the scripted model keeps between requests (the script, the requests it got, failures
 * served) and what it records of each request. Shared by server.ts and the answer handlers.
 */

export type ServerState = {
  rules: ScriptRule[];
  requests: ScriptedRequest[];
  /** failures served so far per scripted turn, for `error.times` */
  failures: Map<string, number>;
  responses: number;
  /** cache prefixes (Anthropic format) written so far: a repeat is reported as a cache read */
  cachePrefixes: Set<string>;
  /** clients sharing this server, each with its own script and log (scopes.ts) */
  scopes: Map<string, Scope>;
};

/** The script that answers a request: its scope's, or the server's own when no scope claims it. */
export type ActiveScript = Pick<ServerState, "rules" | "failures">;

/**
 * The script for this request (scopes.ts), the request added to its scope's log; or the names of
 * the scopes that all claim it, which no one may answer.
 */
export function scriptFor(
  state: ServerState,
  view: ConversationView,
  entry: ScriptedRequest,
): ActiveScript | { ambiguous: string[] } {
  const route = routeToScope(state.scopes, view.user);
  if (route.kind === "ambiguous") return { ambiguous: route.names };
  if (route.kind === "none") return state;
  route.scope.requests.push(entry);
  return route.scope;
}

export const ambiguityMessage = (names: string[]) =>
  `scripted model: the rules of scopes ${names.join(" and ")} all match this conversation; none answers it`;

/** The scripted error this request gets, counting it against `times`; null to answer normally. */
export function failureToServe(script: ActiveScript, choice: TurnChoice, view: ConversationView): ScriptError | null {
  const error = choice.turn.error;
  if (!error || choice.kind !== "scripted") return null;
  const key = `${choice.ruleIndex}:${choice.turnIndex}:${view.user}`;
  const served = script.failures.get(key) ?? 0;
  if (error.times !== undefined && served >= error.times) return null;
  script.failures.set(key, served + 1);
  return error;
}
