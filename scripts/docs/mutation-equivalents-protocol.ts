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
