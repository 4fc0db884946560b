import type { Equivalent } from "./mutation-report.js";

/**
 * Why a mutant that survived is equivalent: no input tells it from the code. Named by file, mutator, the
 * mutated text and its replacement (as docs/mutation.md shows them), not by line, so a reason outlives edits
 * elsewhere in the file; `context` tells apart the same mutation of the same text on different lines. A
 * reason that matches no survivor of a measured file fails test/unit/docs/mutation-doc.test.ts.
 */
export const EQUIVALENTS: readonly Equivalent[] = [
  {
    file: "runtime/hmac-hex.ts",
    mutator: "BooleanLiteral",
    original: "false",
    replacement: "true",
    reason:
      "`extractable` only allows exporting the key's bytes with `crypto.subtle.exportKey`; the key never leaves `key()`'s two callers, which only sign and verify with it.",
  },
];
