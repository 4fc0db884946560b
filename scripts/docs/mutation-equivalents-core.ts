import type { Equivalent } from "./mutation-report.js";

/** Survivors of the loop core (durable-objects/conversation/core/), each with why no input tells it from the code. */
export const CORE_EQUIVALENTS: readonly Equivalent[] = [
  {
    file: "durable-objects/conversation/core/approval-rules.ts",
    mutator: "ArrayDeclaration",
    original: "[]",
    replacement: '["Stryker was here"]',
    context: "rules ?? []",
    reason:
      "with no rules the loop then meets one string instead of none; a string's `tool` is undefined, never equal to the call's tool name (a string), so the first test skips it and the answer is null, as with no rules.",
  },
  {
    file: "durable-objects/conversation/core/late-results.ts",
    mutator: "ConditionalExpression",
    original: 'm.role === "assistant"',
    replacement: "true",
    reason:
      "only an assistant message has `tool_calls` (`ChatMessage`, types.ts); the messages memory holds are the ones the loop wrote in those shapes (or the shell read back from its own rows), so for any other role `m.tool_calls?.find(…)` is undefined, as the `: undefined` branch is.",
  },
  {
    file: "durable-objects/conversation/core/approvals.ts",
    mutator: "OptionalChaining",
    original: "state.run?.round_started_at",
    replacement: "state.run.round_started_at",
    reason:
      "`onApproval` has returned before this line unless `round`, read as `state.run?.round`, is there, which needs `state.run`; nothing between sets `state.run` to undefined, so the `?.` never guards anything.",
  },
  {
    file: "durable-objects/conversation/core/history.ts",
    mutator: "OptionalChaining",
    original: "state.history?.system",
    replacement: "state.history.system",
    reason:
      "it is read only when `n === 0` and `n < from`, so `from` is above 0; `windowStart` gives a `from` above 0 only from a `state.history` that is there (without one it is 0), so `state.history` is never undefined where the `?.` would have guarded it.",
  },
];
