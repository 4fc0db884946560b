import type { ConversationView } from "./conversation-view.js";
import type { ScriptRule, ScriptTurn } from "./script.js";

/** Which scripted turn answers a request; pure, the server keeps no conversation state. */
export type TurnChoice =
  | { kind: "scripted"; ruleIndex: number; turnIndex: number; turn: ScriptTurn; matchGroups: string[] }
  | { kind: "unscripted"; turn: ScriptTurn; matchGroups: string[] };

export function chooseTurn(rules: readonly ScriptRule[], view: ConversationView): TurnChoice {
  for (const [ruleIndex, rule] of rules.entries()) {
    const match = rule.match === undefined ? [] : new RegExp(rule.match, "is").exec(view.user);
    if (match === null) continue;
    const turnIndex = view.assistantTurns;
    const turn = rule.turns[turnIndex];
    // First matching rule decides; running out of its turns does not fall through to others.
    if (!turn) break;
    return { kind: "scripted", ruleIndex, turnIndex, turn, matchGroups: match.slice(1).map((g) => g ?? "") };
  }
  // Nothing scripted: answer plainly so a test or a demo never hangs.
  return {
    kind: "unscripted",
    turn: { content: `[scripted model] no scripted turn for: ${view.user}` },
    matchGroups: [],
  };
}
