import type { Equivalent } from "./mutation-report.js";

/** Stated equivalents for the model-answer parsers (stream-assembler.ts, text-tool-calls.ts); see mutation-equivalents.ts. */

/** Why skipping fenced bodies that start with no bracket changes nothing (text-tool-calls.ts). */
const FENCE_SHORTCUT =
  "the test only saves work. A fenced body (trimmed) that starts with neither `{` nor `[` is either not JSON, and then `JSON.parse` fails and `CALL_ATTEMPT`, anchored at `{`, finds no attempt, so nothing is reported; or it is a JSON string, number, boolean or null, which `toCalls` reads as no call (`toCall` takes only objects). Either way the loop goes on to the next fence with nothing recorded, as the skip does.";

export const LLM_EQUIVALENTS: readonly Equivalent[] = [
  {
    file: "durable-objects/conversation/llm/stream-assembler.ts",
    mutator: "ArrayDeclaration",
    original: "[]",
    replacement: '["Stryker was here"]',
    context: "chunk.choices",
    reason:
      "a chunk without a `choices` array then loops over one string instead of over nothing; the loop's first line skips every choice that is not an object (`if (!isObject(choice)) continue`), so nothing is read and `sawChoice` stays false.",
  },
  {
    file: "durable-objects/conversation/llm/stream-assembler.ts",
    mutator: "ConditionalExpression",
    original: 'typeof index === "number"',
    replacement: "true",
    reason:
      '`Number.isInteger` is false for every value that is not a number, so `true && Number.isInteger(index)` is the same test as `typeof index === "number" && Number.isInteger(index)`.',
  },
  {
    file: "durable-objects/conversation/llm/stream-assembler.ts",
    mutator: "ArrayDeclaration",
    original: "[]",
    replacement: '["Stryker was here"]',
    context: "const slots",
    reason:
      "buildTurn skips a slot with neither a name nor arguments (`!slot.name && !slot.arguments`); the extra entry is a string, which has neither property, so it gives no call, and a call's position (for its generated id) counts calls pushed, not slots.",
  },
  {
    file: "durable-objects/conversation/llm/stream-assembler.ts",
    mutator: "ArrayDeclaration",
    original: "[]",
    replacement: '["Stryker was here"]',
    context: ": [];",
    reason:
      "a message with neither `tool_calls` nor `function_call` then gives one string as its raw calls instead of none; the loop skips every entry that is not an object (`if (!isObject(call)) continue`), so no slot is made.",
  },
  {
    file: "durable-objects/conversation/llm/text-tool-calls.ts",
    mutator: "StringLiteral",
    original: '""',
    replacement: '"Stryker was here!"',
    context: "stripFence(match[1]",
    reason:
      "`TAGGED`'s group 1, `([\\s\\S]*?)`, is not optional, so it takes part in every match and `match[1]` is always a string (perhaps empty): the right side of `??` is never used.",
  },
  {
    file: "durable-objects/conversation/llm/text-tool-calls.ts",
    mutator: "StringLiteral",
    original: '""',
    replacement: '"Stryker was here!"',
    context: "const body = (match[1]",
    reason:
      "`FENCED`'s group 1, `([\\s\\S]*?)`, is not optional, so it takes part in every match and `match[1]` is always a string (perhaps empty): the right side of `??` is never used.",
  },
  {
    file: "durable-objects/conversation/llm/text-tool-calls.ts",
    mutator: "StringLiteral",
    original: '""',
    replacement: '"Stryker was here!"',
    context: "m[1] ??",
    reason:
      "`stripFence`'s group 1, `([\\s\\S]*?)`, is not optional, so when the regex matches `m[1]` is always a string (perhaps empty): the right side of `??` is never used.",
  },
  {
    file: "durable-objects/conversation/llm/text-tool-calls.ts",
    mutator: "ConditionalExpression",
    original: '!body.startsWith("{") && !body.startsWith("[")',
    replacement: "false",
    reason: FENCE_SHORTCUT,
  },
  {
    file: "durable-objects/conversation/llm/text-tool-calls.ts",
    mutator: "StringLiteral",
    original: '"{"',
    replacement: '""',
    context: "body.startsWith",
    reason: `every text starts with "", so the test is always false and never skips: ${FENCE_SHORTCUT}`,
  },
  {
    file: "durable-objects/conversation/llm/text-tool-calls.ts",
    mutator: "StringLiteral",
    original: '"["',
    replacement: '""',
    context: "body.startsWith",
    reason: `every text starts with "", so the test is always false and never skips: ${FENCE_SHORTCUT}`,
  },
  {
    file: "durable-objects/conversation/llm/text-tool-calls.ts",
    mutator: "MethodExpression",
    original: "match[0].trim()",
    replacement: "match[0]",
    reason: "a `FENCED` match begins and ends with three backticks, so it has no whitespace at either end to trim.",
  },
  {
    file: "durable-objects/conversation/llm/text-tool-calls.ts",
    mutator: "EqualityOperator",
    original: "i < source.length",
    replacement: "i <= source.length",
    reason:
      "at `i === source.length` the character is undefined: no skipped range holds it (a range ends at or before the end, and skipping needs `i < r.end`) and it is no bracket, so that one more pass only does `i++` and the loop ends.",
  },
  {
    file: "durable-objects/conversation/llm/text-tool-calls.ts",
    mutator: "EqualityOperator",
    original: "i >= r.start",
    replacement: "i > r.start",
    reason:
      "a skipped range is a fenced call, whose first character is a backtick; at `i === r.start` the mutant does not skip, but a backtick is no bracket, so that pass only does `i++`, and from `r.start + 1` the range is skipped as before.",
  },
  {
    file: "durable-objects/conversation/llm/text-tool-calls.ts",
    mutator: "ConditionalExpression",
    original: 'ch !== "{" && ch !== "["',
    replacement: "false",
    reason:
      "`OBJECT_START` is anchored (`^`) and can only match text starting with `[` or `{`, so `!OBJECT_START.test(…)` alone skips every position the character test skips; the character test only saves the regex call.",
  },
  {
    file: "durable-objects/conversation/llm/text-tool-calls.ts",
    mutator: "EqualityOperator",
    original: "i < text.length",
    replacement: "i <= text.length",
    reason:
      "at `i === text.length` the character is undefined, which is no backslash, quote or bracket: the pass changes nothing and the loop ends with -1, as it would have.",
  },
  {
    file: "durable-objects/conversation/llm/text-tool-calls.ts",
    mutator: "ConditionalExpression",
    original: "range.start < cursor",
    replacement: "false",
    reason:
      "the removed ranges never overlap, so no range starts before the cursor: fenced ranges come from one `matchAll`, whose matches do not overlap; the bare scan skips fenced ranges and resumes after each call it takes; a Mistral marker taken with a bare call ends where the call starts and cannot reach back into an earlier range (one ends with a fence's backticks or with a JSON value's closing bracket, and JSON never ends in `[TOOL_CALLS]`); and a bare call cannot hold a fenced call, since the fence would lie in the JSON's strings, so the fenced call's quoted keys would be the JSON's unquoted text, and a call key such as `tool` is not valid unquoted JSON (tagged calls are taken alone).",
  },
];
