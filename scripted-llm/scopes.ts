import { z } from "zod";
import { ScriptRule } from "./script.js";
import type { ScriptedRequest } from "./scripted-request.js";

/**
 * Scopes: several clients sharing one scripted model (the test suite's shared worker), each with a
 * script and a request log of its own. Nothing in a model request names who sent the conversation
 * (a single device's tools carry no agent id, and there is no system prompt by default), so a
 * request goes to the scope whose rules match its last user message, and to no other:
 *
 * - every rule of a scope has a `match` (a catch-all would claim every other scope's conversations);
 * - a scope whose rules match another scope's match texts is refused when it is registered;
 * - a request two scopes match is answered with a 400 naming both, never by either of them;
 * - a request no scope matches gets the server's own script (unscripted, in the shared model).
 *
 * So one scope's rules never answer another's conversation silently. Pure; server.ts serves it.
 */

export const ScopeName = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, "letters, digits and '-'");

const ScopedRule = ScriptRule.refine((r) => r.match !== undefined, "a scoped rule needs a `match`");
export const ScopeBody = z.object({ rules: z.array(ScopedRule).min(1) }).strict();

export type Scope = {
  rules: ScriptRule[];
  /** the model requests this scope answered, in order */
  requests: ScriptedRequest[];
  /** failures served so far per scripted turn, for `error.times` */
  failures: Map<string, number>;
};

export type ScopeRoute =
  | { kind: "scope"; name: string; scope: Scope }
  | { kind: "none" }
  | { kind: "ambiguous"; names: string[] };

const matches = (rule: ScriptRule, text: string) => new RegExp(rule.match ?? "", "is").test(text);

export function routeToScope(scopes: ReadonlyMap<string, Scope>, user: string): ScopeRoute {
  const hits = [...scopes].filter(([, scope]) => scope.rules.some((r) => matches(r, user)));
  if (hits.length === 0) return { kind: "none" };
  if (hits.length > 1) return { kind: "ambiguous", names: hits.map(([name]) => name) };
  const [name, scope] = hits[0]!;
  return { kind: "scope", name, scope };
}

/**
 * Why `rules` may not join as scope `name`: a rule of one side matching a match text of the other
 * (match texts are written as the messages they answer, so this finds most overlaps before a
 * request does). Null when there is none.
 */
export function scopeConflict(
  scopes: ReadonlyMap<string, Scope>,
  name: string,
  rules: readonly ScriptRule[],
): string | null {
  for (const [other, scope] of scopes) {
    if (other === name) continue;
    for (const mine of rules) {
      for (const theirs of scope.rules) {
        if (matches(mine, theirs.match ?? "") || matches(theirs, mine.match ?? "")) {
          return `rule "${mine.match}" overlaps scope ${other}'s rule "${theirs.match}"`;
        }
      }
    }
  }
  return null;
}
