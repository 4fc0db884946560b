import type { Equivalent } from "./mutation-report.js";

/** round.ts startRound: a call prepareCall made is done exactly when it has an outcome. */
const DONE_WITH_OUTCOME =
  "startRound looks at the calls prepareCall has just made from the model's raw calls (none can be passed in), and prepareCall gives a call an outcome exactly when it leaves it done: its base call (done, no outcome) is returned only with an outcome set (unknown tool, invalid arguments, the hook's block), its ready call is queued with none, and decideByRule keeps it awaiting or queued with none, or makes it done with a blocked outcome. Nothing in the loop changes a call's state or outcome before this line, so `call.outcome` alone, `call.state === \"done\"` or `call.outcome`, and both together agree.";

/** compaction.ts nextSafeBoundary: the walk to the next user or assistant message always finds one. */
const SAFE_WALK =
  "nextSafeBoundary is called only from selectCut's loop, while `upto < lastSafe`. `upto` is `opts.from` or a turn's index at or after it (a `keepTurns` that picks no turn leaves it undefined, and the loop never runs), and lastSafeBoundary answers `from` only when no index past `from` holds a user or assistant message; so `lastSafe` is an index below `messages.length` that holds one, past `upto`. The walk from `upto + 1` stops there at the latest, and each later call starts from a `upto` still below `lastSafe`: the length test is never what ends the walk.";

/** Survivors of the loop core (durable-objects/conversation/core/), each with why no input tells it from the code. */
export const CORE_EQUIVALENTS: readonly Equivalent[] = [
  {
    file: "durable-objects/conversation/core/image-size.ts",
    mutator: "ArithmeticOperator",
    original: "i + 3",
    replacement: "i - 3",
    reason:
      "with `i + 3` at the end of the bytes or past it, no frame header (9 bytes from `i`) fits any more: the walk then reads missing bytes as 0 (`undefined` in `|` and `<<`), so the length is under 2, a frame is refused by `i + 9 > b.length`, a byte past the end is not 0xff, or the loop ends; every way answers null, as the loop's end does.",
  },
  {
    file: "durable-objects/conversation/core/image-size.ts",
    mutator: "EqualityOperator",
    original: "i + 3 < b.length",
    replacement: "i + 3 <= b.length",
    reason:
      "with `i + 3` at the end of the bytes or past it, no frame header (9 bytes from `i`) fits any more: the walk then reads missing bytes as 0 (`undefined` in `|` and `<<`), so the length is under 2, a frame is refused by `i + 9 > b.length`, a byte past the end is not 0xff, or the loop ends; every way answers null, as the loop's end does.",
  },
  {
    file: "durable-objects/conversation/core/image-size.ts",
    mutator: "ConditionalExpression",
    original: "length < 2",
    replacement: "false",
    reason:
      "a length under 2 moves the walk to `i + 2` or `i + 3`, into the length's own two bytes: the high byte 0x00, or the low byte 0x01 for a length of 1, and neither is 0xff, so the next step answers null at `b[i] !== 0xff`.",
  },
  {
    file: "durable-objects/conversation/core/image-size.ts",
    mutator: "ConditionalExpression",
    original: "b.length >= prefix.length",
    replacement: "true",
    reason:
      "bytes exactly as long as a signature are too short for that format's reader (PNG needs 24, JPEG a segment after its 2), which answers null, as no format does; and past the end `b[i]` is undefined, equal to no byte of a signature, so `every` is false without the length test.",
  },
  {
    file: "durable-objects/conversation/core/image-size.ts",
    mutator: "EqualityOperator",
    original: "b.length >= prefix.length",
    replacement: "b.length > prefix.length",
    reason:
      "bytes exactly as long as a signature are too short for that format's reader (PNG needs 24, JPEG a segment after its 2), which answers null, as no format does; and past the end `b[i]` is undefined, equal to no byte of a signature, so `every` is false without the length test.",
  },
  {
    file: "durable-objects/conversation/core/image-size.ts",
    mutator: "ArithmeticOperator",
    original: "at + length",
    replacement: "at - length",
    reason:
      "a name that is cut by the end of the bytes is shorter than the 4- or 6-character name it is compared with, or answers something no format name is; and one that ends exactly at the end leaves no room for the bytes its reader needs after it (GIF: 10, WebP: 25 or 30), which then answers null, as finding no format does.",
  },
  {
    file: "durable-objects/conversation/core/image-size.ts",
    mutator: "ConditionalExpression",
    original: "b.length < at + length",
    replacement: "false",
    reason:
      "a name that is cut by the end of the bytes is shorter than the 4- or 6-character name it is compared with, or answers something no format name is; and one that ends exactly at the end leaves no room for the bytes its reader needs after it (GIF: 10, WebP: 25 or 30), which then answers null, as finding no format does.",
  },
  {
    file: "durable-objects/conversation/core/image-size.ts",
    mutator: "EqualityOperator",
    original: "b.length < at + length",
    replacement: "b.length <= at + length",
    reason:
      "a name that is cut by the end of the bytes is shorter than the 4- or 6-character name it is compared with, or answers something no format name is; and one that ends exactly at the end leaves no room for the bytes its reader needs after it (GIF: 10, WebP: 25 or 30), which then answers null, as finding no format does.",
  },
  {
    file: "durable-objects/conversation/core/image-size.ts",
    mutator: "StringLiteral",
    original: '""',
    replacement: '"Stryker was here!"',
    context: 'return "";',
    reason:
      "a name that is cut by the end of the bytes is shorter than the 4- or 6-character name it is compared with, or answers something no format name is; and one that ends exactly at the end leaves no room for the bytes its reader needs after it (GIF: 10, WebP: 25 or 30), which then answers null, as finding no format does.",
  },
  {
    file: "durable-objects/conversation/core/compaction-prompt.ts",
    mutator: "StringLiteral",
    original: '"system"',
    replacement: '""',
    context: 'case "system":',
    reason:
      "a system message then matches no case and `transcriptLine` returns undefined instead of null; its one caller keeps a line only `if (line)`, and both are falsy, so the transcript is the same (and no message has an empty role).",
  },
  {
    file: "durable-objects/conversation/core/image-context.ts",
    mutator: "ArrayDeclaration",
    original: "new Array<ChatMessage>(messages.length)",
    replacement: "new Array()",
    reason:
      "the loop assigns `out[i]` for every `i` from `messages.length - 1` down to 0, on both of its paths, so an array made empty grows to the same length with the same element at every index as one made that long.",
  },
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
  {
    file: "durable-objects/conversation/core/compaction.ts",
    mutator: "ConditionalExpression",
    original: "lastTurn !== null",
    replacement: "true",
    context: "pinned: lastTurn !== null",
    reason:
      "where the test would have been false, `lastTurn` is null, and `? lastTurn : null` gives null on both branches: the cut's `pinned` is null either way.",
  },
  {
    file: "durable-objects/conversation/core/compaction.ts",
    mutator: "ConditionalExpression",
    original: "i < messages.length",
    replacement: "true",
    context: "!isSafeStart(messages[i]!)) i++",
    reason: SAFE_WALK,
  },
  {
    file: "durable-objects/conversation/core/compaction.ts",
    mutator: "EqualityOperator",
    original: "i < messages.length",
    replacement: "i <= messages.length",
    context: "!isSafeStart(messages[i]!)) i++",
    reason: SAFE_WALK,
  },
  {
    file: "durable-objects/conversation/core/compaction.ts",
    mutator: "EqualityOperator",
    original: "i > from",
    replacement: "i >= from",
    reason:
      "the mutant also looks at index `from` itself, and returns `i` there when it holds a user or assistant message: that is `from`, what the original returns when no index above `from` holds one. The walk counts down by 1 from `messages.length - 1`, so it meets `from` only when `from` is a whole number below the length: a negative one makes selectCut, the only caller, throw before either way (its first loop reads `messages[from]`, undefined, and asks for its role), and one from 0 up is a message of the array.",
  },
  {
    file: "durable-objects/conversation/core/round.ts",
    mutator: "StringLiteral",
    original: '"rule:"',
    replacement: '""',
    reason:
      'startRound reads `decided_by` of the calls prepareCall has just made from the model\'s raw calls (none can be passed in): prepareCall\'s own calls have no `decided_by`, and decideByRule, the only step that sets one there, sets `rule:<id>`. So `decided_by` is undefined or starts with `rule:`, and for such a string `startsWith("")` and `startsWith("rule:")` are both true.',
  },
  {
    file: "durable-objects/conversation/core/round.ts",
    mutator: "ConditionalExpression",
    original: 'call.state === "done"',
    replacement: "true",
    context: 'if (call.state === "done" && call.outcome)',
    reason: DONE_WITH_OUTCOME,
  },
  {
    file: "durable-objects/conversation/core/round.ts",
    mutator: "LogicalOperator",
    original: 'call.state === "done" && call.outcome',
    replacement: 'call.state === "done" || call.outcome',
    reason: DONE_WITH_OUTCOME,
  },
  {
    file: "durable-objects/conversation/core/round.ts",
    mutator: "OptionalChaining",
    original: "c.outcome?.status",
    replacement: "c.outcome.status",
    reason:
      "completeRound's loop before this line reads `call.outcome!` and then its `status` for every call of the round, so a call without an outcome makes it throw there, mutant or not; here every call has one, and the `?.` never guards anything.",
  },
  {
    file: "durable-objects/conversation/core/tool-messages.ts",
    mutator: "ArrayDeclaration",
    original: "[]",
    replacement: '["Stryker was here"]',
    context: "(outcome.content ?? []).filter(isImageRef)",
    reason:
      'the array is filtered by isImageRef at once, which asks for `block.type === "image"`: the mutant\'s one element is a string, whose `type` is undefined, so it is dropped and the answer is `[]`, as from the empty array.',
  },
];
