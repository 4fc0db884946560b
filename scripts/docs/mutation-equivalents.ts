import type { Equivalent } from "./mutation-report.js";

/**
 * Why a mutant that survived is equivalent: no input tells it from the code. Named by file, mutator, the
 * mutated text and its replacement (as docs/mutation.md shows them), not by line, so a reason outlives edits
 * elsewhere in the file; `context` tells apart the same mutation of the same text on different lines. A
 * reason that matches no survivor of a measured file fails test/unit/docs/mutation-doc.test.ts.
 */

/** Web Crypto's `extractable` flag on a key that is only ever used to sign or verify. */
const EXTRACTABLE =
  "`extractable` only lets `crypto.subtle.exportKey` read the key's bytes back out; the key lives only inside this call and is used to sign or verify, never exported, so what it signs and verifies is the same.";

/** Why Stryker's run reports a module-level constant's mutant survived although a test kills it. */
const STATIC =
  "Stryker's run reported it survived: the value is made once, when the module loads (a static mutant), and the unit project's files share one module cache (`isolate: false`), so the module may already be loaded, unmutated, when the tests that would kill it run.";

/** Why skipping fenced bodies that start with no bracket changes nothing (text-tool-calls.ts). */
const FENCE_SHORTCUT =
  "the test only saves work. A fenced body (trimmed) that starts with neither `{` nor `[` is either not JSON, and then `JSON.parse` fails and `CALL_ATTEMPT`, anchored at `{`, finds no attempt, so nothing is reported; or it is a JSON string, number, boolean or null, which `toCalls` reads as no call (`toCall` takes only objects). Either way the loop goes on to the next fence with nothing recorded, as the skip does.";

/** Why what checkValue returns after it reported a problem is never seen (validate-arguments.ts). */
const AFTER_A_PROBLEM =
  "checkValue answers `{ ok: false }` only right after it pushed a problem, and validateArguments returns its error, built from the problems alone, whenever any problem was pushed, dropping every value built on the way; so what checkValue or a nested check returns once a problem is pushed is never seen.";

/** checkValue runs wrongType first (validate-arguments.ts). */
const TYPE_CHECKED = "checkValue returns before this line unless `wrongType` found the value of the schema's type:";

/** parseIpv4 of a host with nothing left (ip-address.ts). */
const EMPTY_HOST =
  'the check only answers early: an empty host splits into one empty part, and parseIpv4Part refuses "" (each of its digit patterns needs at least one digit), so the answer is null either way.';

/** What parseIpv4 does with a part's value after parseIpv4Part (ip-address.ts). */
const PART_BOUND =
  "parseIpv4Part is only called by parseIpv4, which refuses any part but the last above 255 and a last part of 2^(8·bytes left) or more (at most 2^32): a value above 0xffffffff is refused there";

/** parseIpv6's first line is a shortcut (ip-address.ts). */
const V6_PREFILTER =
  "the character test only refuses early: every character of the text ends up in a group checked against `/^[0-9a-f]{1,4}$/i`, a dotted tail's octet checked against `/^\\d{1,3}$/`, or a separator (`:`, `::`, the tail's dots), so a text with any other character is refused further down, and the empty text gives no groups and fails the group count.";

export const EQUIVALENTS: readonly Equivalent[] = [
  {
    file: "runtime/hmac-hex.ts",
    mutator: "BooleanLiteral",
    original: "false",
    replacement: "true",
    reason: EXTRACTABLE,
  },
  {
    file: "protocol/webhook-signatures.ts",
    mutator: "BooleanLiteral",
    original: "false",
    replacement: "true",
    reason: EXTRACTABLE,
  },
  {
    file: "durable-objects/channels/platforms/discord/verify.ts",
    mutator: "BooleanLiteral",
    original: "false",
    replacement: "true",
    reason: EXTRACTABLE,
  },
  {
    file: "durable-objects/device-hub/wires/openclaw/device-signature.ts",
    mutator: "BooleanLiteral",
    original: "false",
    replacement: "true",
    reason: EXTRACTABLE,
  },
  {
    file: "durable-objects/device-hub/wires/openclaw/device-signature.ts",
    mutator: "ArithmeticOperator",
    original: "2 * 60_000",
    replacement: "2 / 60_000",
    killed_by: "test/unit/openclaw/device-signature.test.ts",
    reason: STATIC,
  },
  {
    file: "runtime/access.ts",
    mutator: "ArrowFunction",
    original: '(p: Pick<Principal, "id" | "scoped" | "reach">): Owner => ({ … coped: p.scoped, reach: p.reach, })',
    replacement: "() => undefined",
    killed_by: "test/unit/security/origin-and-access-edges.test.ts",
    reason: STATIC,
  },
  {
    file: "durable-objects/deployment/pairing-store.ts",
    mutator: "ArithmeticOperator",
    original: "30 * 86_400_000",
    replacement: "30 / 86_400_000",
    killed_by: "test/unit/deployment/pairing-store.test.ts",
    reason: STATIC,
  },
  {
    file: "runtime/guarded-fetch.ts",
    mutator: "StringLiteral",
    original: '"GET"',
    replacement: '""',
    context: "init.method ??",
    reason:
      'the default method is only compared with `POST` and `HEAD`; neither `GET` nor `""` is either, and the next request\'s method is taken from the request itself (left unset), not from this default.',
  },
  {
    file: "durable-objects/channels/platforms/discord/verify.ts",
    mutator: "StringLiteral",
    original: '""',
    replacement: '"Stryker was here!"',
    reason:
      'the stand-in for a missing X-Signature-Ed25519 header goes to `hexBytes`; `""` and that text are both not hex (its regex needs one or more pairs of hex digits), so both give null and the same refusal.',
  },
  {
    file: "protocol/webhook-signatures.ts",
    mutator: "StringLiteral",
    original: '""',
    replacement: '"Stryker was here!"',
    context: "header ??",
    reason:
      'the stand-in for a missing webhook-signature header is split into parts that must start with `v1,`; neither `""` nor any word of that text does, so both find no signature and give the same refusal.',
  },
  {
    file: "protocol/webhook-signatures.ts",
    mutator: "BlockStatement",
    original: "{ return null; }",
    replacement: "{}",
    reason:
      "`base64ToBytes`'s catch then returns undefined instead of null; both of its callers only test the result for truthiness (`if (decoded)`, `if (bytes)`), and both are falsy.",
  },
  {
    file: "worker/hooks/verify-hook.ts",
    mutator: "StringLiteral",
    original: '""',
    replacement: '"Stryker was here!"',
    context: "x-grafana-alerting-signature",
    reason:
      'the stand-in for a missing X-Grafana-Alerting-Signature goes to `verifyHmacSha256Hex`, which refuses anything but 64 hex digits before it computes anything; `""` and that text are both refused, with the same reason.',
  },
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
  {
    file: "protocol/validate-arguments.ts",
    mutator: "ConditionalExpression",
    original: "raw === null",
    replacement: "false",
    reason:
      "null then goes on to `asObject`, whose first line answers null with the same `{ ok: true, value: {} }`; null is not a string, so nothing between the two reads it.",
  },
  {
    file: "protocol/validate-arguments.ts",
    mutator: "ConditionalExpression",
    original: "checked.ok",
    replacement: "true",
    reason: `with it the key is set to undefined when the check failed; ${AFTER_A_PROBLEM}`,
  },
  {
    file: "protocol/validate-arguments.ts",
    mutator: "ObjectLiteral",
    original: "{ ok: false }",
    replacement: "{}",
    reason: AFTER_A_PROBLEM,
  },
  {
    file: "protocol/validate-arguments.ts",
    mutator: "BooleanLiteral",
    original: "false",
    replacement: "true",
    context: "{ ok: false };",
    reason: AFTER_A_PROBLEM,
  },
  {
    file: "protocol/validate-arguments.ts",
    mutator: "ConditionalExpression",
    original: "problems.length === before",
    replacement: "true",
    reason: `it differs only when the nested check pushed a problem; ${AFTER_A_PROBLEM}`,
  },
  {
    file: "protocol/validate-arguments.ts",
    mutator: "ConditionalExpression",
    original: "schema.minimum !== undefined",
    replacement: "true",
    reason:
      "without a minimum, `value < schema.minimum` compares a number with undefined, which is false for every number, as the guard's false is.",
  },
  {
    file: "protocol/validate-arguments.ts",
    mutator: "ConditionalExpression",
    original: "schema.maximum !== undefined",
    replacement: "true",
    reason:
      "without a maximum, `value > schema.maximum` compares a number with undefined, which is false for every number, as the guard's false is.",
  },
  {
    file: "protocol/validate-arguments.ts",
    mutator: "ConditionalExpression",
    original: 'schema.type === "object"',
    replacement: "true",
    reason: `${TYPE_CHECKED} a plain object gets here only under type "object", so \`isPlainObject(value)\` alone is the same test.`,
  },
  {
    file: "protocol/validate-arguments.ts",
    mutator: "LogicalOperator",
    original: 'schema.type === "object" && isPlainObject(value)',
    replacement: 'schema.type === "object" || isPlainObject(value)',
    reason: `${TYPE_CHECKED} under type "object" the value is a plain object, and under any other type it is not, so \`||\` and \`&&\` agree.`,
  },
  {
    file: "protocol/validate-arguments.ts",
    mutator: "ConditionalExpression",
    original: 'schema.type === "array"',
    replacement: "true",
    reason: `${TYPE_CHECKED} an array gets here only under type "array", so \`Array.isArray(value)\` alone is the same test.`,
  },
  {
    file: "protocol/validate-arguments.ts",
    mutator: "LogicalOperator",
    original: 'schema.type === "array" && Array.isArray(value)',
    replacement: 'schema.type === "array" || Array.isArray(value)',
    reason: `${TYPE_CHECKED} under type "array" the value is an array, and under any other type it is not, so \`||\` and \`&&\` agree.`,
  },
  {
    file: "protocol/validate-arguments.ts",
    mutator: "ConditionalExpression",
    original: 'typeof value === "number"',
    replacement: "true",
    reason:
      "`Number.isInteger` and `Number.isFinite` do not convert their argument: both are false for every value that is not a number, so the `typeof` before them decides nothing.",
  },
  {
    file: "protocol/validate-arguments.ts",
    mutator: "ConditionalExpression",
    original: "alias !== key",
    replacement: "true",
    reason:
      "the loop has already skipped keys the schema knows (`if (known.has(key)) continue`), so when an alias equals its key, `known.has(alias)` is false and the condition is false either way.",
  },
  {
    file: "runtime/ip-address.ts",
    mutator: "ConditionalExpression",
    original: "r.bits === 0",
    replacement: "false",
    reason:
      "no range in `V4_BLOCKED` has 0 bits (the shortest is /4), so the `r.bits === 0` branch is never taken and the mask is always the shifted one.",
  },
  {
    file: "runtime/ip-address.ts",
    mutator: "ConditionalExpression",
    original: 'trimmed === ""',
    replacement: "false",
    reason: EMPTY_HOST,
  },
  {
    file: "runtime/ip-address.ts",
    mutator: "StringLiteral",
    original: '""',
    replacement: '"Stryker was here!"',
    context: "trimmed ===",
    reason: EMPTY_HOST,
  },
  {
    file: "runtime/ip-address.ts",
    mutator: "Regex",
    original: "/^0x/i",
    replacement: "/0x/i",
    reason:
      'a part with `0x` anywhere but at its start has an `x` at index 2 or later, so the hex branch\'s `part.slice(2)` keeps that `x` and fails `/^[0-9a-f]+$/i`; the decimal or octal pattern the code uses instead fails on the `x` too, so both answer null (and `digits === ""` needs a part of two characters, which then starts with `0x`).',
  },
  {
    file: "runtime/ip-address.ts",
    mutator: "MethodExpression",
    original: "part.slice(1)",
    replacement: "part",
    reason:
      "the dropped character is the octal part's leading `0`: a leading 0 changes neither whether `/^[0-7]+$/` matches nor the value `parseInt(…, 8)` gives.",
  },
  {
    file: "runtime/ip-address.ts",
    mutator: "ConditionalExpression",
    original: "Number.isSafeInteger(value) && value <= 0xffffffff",
    replacement: "true",
    reason: `${PART_BOUND} and an unsafe or infinite value is larger still.`,
  },
  {
    file: "runtime/ip-address.ts",
    mutator: "LogicalOperator",
    original: "Number.isSafeInteger(value) && value <= 0xffffffff",
    replacement: "Number.isSafeInteger(value) || value <= 0xffffffff",
    reason: `${PART_BOUND} (an unsafe integer is above 2^53, so it fails both sides alike).`,
  },
  {
    file: "runtime/ip-address.ts",
    mutator: "ConditionalExpression",
    original: "value <= 0xffffffff",
    replacement: "true",
    reason: `${PART_BOUND}.`,
  },
  {
    file: "runtime/ip-address.ts",
    mutator: "ConditionalExpression",
    original: "!/^[0-9a-f:.]+$/i.test(text)",
    replacement: "false",
    reason: V6_PREFILTER,
  },
  {
    file: "runtime/ip-address.ts",
    mutator: "Regex",
    original: "/^[0-9a-f:.]+$/i",
    replacement: "/[0-9a-f:.]+$/i",
    reason: V6_PREFILTER,
  },
  {
    file: "runtime/ip-address.ts",
    mutator: "Regex",
    original: "/^[0-9a-f:.]+$/i",
    replacement: "/^[0-9a-f:.]+/i",
    reason: V6_PREFILTER,
  },
  {
    file: "runtime/ip-address.ts",
    mutator: "ConditionalExpression",
    original: "lastColon < 0",
    replacement: "false",
    reason:
      'a dotted tail with no colon is a bare IPv4 address; without the check it becomes two groups (`1.2.3.4` → `102:304`), and two groups without `::` fail the "exactly eight" rule, so the answer is null as before.',
  },
  {
    file: "runtime/ip-address.ts",
    mutator: "EqualityOperator",
    original: "lastColon < 0",
    replacement: "lastColon <= 0",
    reason:
      "the only extra text refused is one whose only colon is its first character (`:1.2.3.4`); without the refusal it becomes `:102:304`, whose first group is empty and fails the group pattern, so the answer is null either way.",
  },
  {
    file: "runtime/ip-address.ts",
    mutator: "ConditionalExpression",
    original: "halves.length === 2",
    replacement: "true",
    context: "const zeros",
    reason:
      "with no `::` (one half) the line above has already refused any count of groups but 8, so `8 - given` is 0 and `Array.from` gives the same empty list as `[]`.",
  },
];
