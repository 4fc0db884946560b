/** Where the summarized part ends: turns counted from `from`, loop notes not turns, a pinned turn paid for. */
import { describe, expect, it } from "vitest";
import { messageTokens, selectCut } from "../../../durable-objects/conversation/core/compaction.js";
import type { ChatMessage } from "../../../durable-objects/conversation/core/index.js";

const user = (content: string): ChatMessage => ({ role: "user", content });
const said = (content: string): ChatMessage => ({ role: "assistant", content });
const called = (id: string): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name: "bash", arguments: "{}" } }],
});
const result = (id: string): ChatMessage => ({ role: "tool", tool_call_id: id, content: "r".repeat(40) });
const HUGE = 1_000_000;

describe("compaction cut: turns", () => {
  it("counts only the turns from `from` on: as many as are kept leaves nothing to summarize", () => {
    const messages = [user("a"), said("b"), user("c"), said("d"), user("e"), said("f")];
    expect(selectCut(messages, { from: 1, keepTurns: 2, budget: HUGE })).toBeNull();
    expect(selectCut(messages, { from: 1, keepTurns: 1, budget: HUGE })).toEqual({ upto: 4, pinned: null });
  });

  it("does not count a note the loop wrote itself as a turn", () => {
    const messages = [
      user("a"),
      said("b"),
      user("c"),
      said("d"),
      user("[edgeloop] The run was stopped: step limit."),
      said("f"),
      user("g"),
      said("h"),
    ];
    expect(selectCut(messages, { from: 0, keepTurns: 2, budget: HUGE })).toEqual({ upto: 2, pinned: null });
  });

  it("moves past assistant messages when there is no user turn at all, keeping the last", () => {
    const messages = [said("a".repeat(400)), said("b".repeat(400)), said("c")];
    expect(selectCut(messages, { from: 0, keepTurns: 1, budget: 0 })).toEqual({ upto: 2, pinned: null });
  });

  it("may start the kept part at a loop note, a user message that is not a turn", () => {
    const messages = [user("first"), said("x".repeat(400)), user("[edgeloop] note"), said("y")];
    const kept = messageTokens(messages[2]!) + messageTokens(messages[3]!) + messageTokens(messages[0]!);
    expect(selectCut(messages, { from: 0, keepTurns: 1, budget: kept })).toEqual({ upto: 2, pinned: 0 });
  });
});

describe("compaction cut: a pinned turn", () => {
  // One turn: a long question, then three calls and their results.
  const question = user("q".repeat(400));
  const messages = [question, called("1"), result("1"), called("2"), result("2"), called("3"), result("3")];
  const all = messages.reduce((n, m) => n + messageTokens(m), 0);
  const exchange = messageTokens(messages[1]!) + messageTokens(messages[2]!);

  it("counts the pinned question against the budget when the cut falls inside its turn", () => {
    // From call 2 on, plus the question: fits. From call 1 on, plus the question: does not.
    const budget = all - exchange;
    expect(selectCut(messages, { from: 0, keepTurns: 1, budget })).toEqual({ upto: 3, pinned: 0 });
    expect(selectCut(messages, { from: 0, keepTurns: 1, budget: budget - 1 })).toEqual({ upto: 5, pinned: 0 });
  });

  it("does not count the question twice when the cut is at the question itself: all that fits stays", () => {
    expect(selectCut(messages, { from: 0, keepTurns: 1, budget: all })).toBeNull();
    // One token less: the question is pinned and the first exchange goes.
    expect(selectCut(messages, { from: 0, keepTurns: 1, budget: all - 1 })).toEqual({ upto: 3, pinned: 0 });
  });
});
