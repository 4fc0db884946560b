import type { Equivalent } from "./mutation-report.js";

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
    file: "durable-objects/conversation/core/tool-policy.ts",
    mutator: "ConditionalExpression",
    original: 'outcome.status === "success"',
    replacement: "true",
    reason:
      "only a success carries `content`: a device's error frame has no such field and its schema drops unknown keys (`ErrorResultFrame`, device-frames.ts), and an MCP server's error (mcp-results.ts), a built-in's and a blocked call (`BlockedOutcome`) are made without one; so for any other status `outcome.content` is undefined and the `&&` is false either way.",
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
    file: "durable-objects/conversation/core/image-context.ts",
    mutator: "ConditionalExpression",
    original: 'message.role !== "tool" && message.role !== "user"',
    replacement: "false",
    reason:
      "only tool and user messages have `images` (`ChatMessage`, types.ts), so for a system or assistant message `!message.images?.length` is true and the message is passed on as it is either way.",
  },
  {
    file: "durable-objects/conversation/core/image-context.ts",
    mutator: "ConditionalExpression",
    original: 'm.role === "assistant"',
    replacement: "true",
    reason:
      "only an assistant message has `tool_calls` (`ChatMessage`, types.ts); the messages memory holds are the ones the loop wrote in those shapes (or the shell read back from its own rows), so for any other role `m.tool_calls` is undefined, and `m.tool_calls ?? []` adds no name.",
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
