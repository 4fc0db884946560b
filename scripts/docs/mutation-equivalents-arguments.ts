import type { Equivalent } from "./mutation-report.js";

/** Stated equivalents for argument validation and the address guard; see mutation-equivalents.ts. */

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

export const ARGUMENT_AND_ADDRESS_EQUIVALENTS: readonly Equivalent[] = [
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
  {
    file: "runtime/outbound-url.ts",
    mutator: "StringLiteral",
    original: '"metadata.google.internal"',
    replacement: '""',
    reason:
      'that name, and every name under it, ends in `.internal` and is refused by the local-suffix rule before the metadata list is read; and `""` matches no host there (`host === ""` was refused first, and `host.endsWith(".")` cannot hold once trailing dots are stripped).',
  },
];
