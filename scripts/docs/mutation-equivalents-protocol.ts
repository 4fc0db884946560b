import type { Equivalent } from "./mutation-report.js";

/** Survivors of the protocol's validators (docs/mutation.md): each is killed by a test, which Stryker's run misses. */

/** Why Stryker's run reports a module-level constant's mutant survived although a test kills it. */
export const STATIC =
  "Stryker's run reported it survived: the value is made once, when the module loads (a static mutant), and the unit project's files share one module cache (`isolate: false`), so the module may already be loaded, unmutated, when the tests that would kill it run.";

/** Why a mutant inside `z.lazy` is reported survived although a test kills it. */
const LAZY =
  "Stryker's run reported it survived: `ParameterSchema` is a `z.lazy`, whose schema zod builds on the first parse and keeps, so Stryker's per-test coverage counts the mutant as covered by whichever test parsed a parameter schema first, and runs that test alone; the test named here, which checks each type and the enum's bound, is not run.";

const PARAMETER_TYPES = ["number", "array", "object"].map(
  (type): Equivalent => ({
    file: "protocol/skill-manifest.ts",
    mutator: "StringLiteral",
    original: `"${type}"`,
    replacement: '""',
    context: "z.enum([",
    killed_by: "test/unit/protocol/skill-manifest-schema.test.ts",
    reason: LAZY,
  }),
);

export const PROTOCOL_EQUIVALENTS: readonly Equivalent[] = [
  {
    file: "protocol/mcp-input-schema.ts",
    mutator: "ConditionalExpression",
    original: 'typeof real[0] === "string"',
    replacement: "true",
    reason:
      "`TYPES.has(real[0])` follows it in the same `&&`: `TYPES` is a set of six strings, and `Set.prototype.has` compares by SameValueZero, which no value that is not a string passes against a string; so whenever the `typeof` test is false the condition is false anyway.",
  },
  {
    file: "protocol/mcp-input-schema.ts",
    mutator: "ArrayDeclaration",
    original: "[]",
    replacement: '["Stryker was here"]',
    context: "dropped: [] });",
    reason:
      "the list a branch's type is worked out with is made for that call and nothing reads it afterwards (the branch's own notes are left out on purpose): what it holds at the start, or gets pushed, reaches no answer.",
  },
  {
    file: "protocol/mcp-input-schema.ts",
    mutator: "ConditionalExpression",
    original: "sample === undefined",
    replacement: "false",
    reason:
      "the early return only shortens the way: `undefined` is neither a string, a boolean nor a number, so the three `typeof` tests after it fail and the function returns null there as well, having pushed nothing.",
  },
  {
    file: "protocol/pairing.ts",
    mutator: "StringLiteral",
    original: '"The code the device shows, like `ABCD-2345` (case and dash do not matter)"',
    replacement: '""',
    reason:
      "a description only, and nothing reads this one: `PairingCode` checks a route's `:code` (worker/routes/pairing.ts), a chat's approval (approve-device.ts) and the CLI's `device approve` (cli/commands/device-pairing.ts) with `safeParse`, whose answer a description does not change, and it is in no OpenAPI schema (the routes' `{code}` is a path parameter of its own), so docs/api.md and the served document are the same either way.",
  },
  {
    file: "protocol/approval-rules.ts",
    mutator: "BlockStatement",
    original: "{ return false; }",
    replacement: "{}",
    reason:
      "the pattern check's `catch` then returns `undefined` instead of `false`; zod (4.6.7 in package-lock.json) refuses a refinement whose answer is falsy (`if (!result)` in `handleRefineResult`, zod/v4/core/schemas.js), so both refuse a pattern that does not compile, with the same issue.",
  },
  ...PARAMETER_TYPES,
  {
    file: "protocol/skill-manifest.ts",
    mutator: "MethodExpression",
    original: "z.array(z.unknown()).min(1)",
    replacement: "z.array(z.unknown()).max(1)",
    killed_by: "test/unit/protocol/skill-manifest-schema.test.ts",
    reason: LAZY,
  },
];
