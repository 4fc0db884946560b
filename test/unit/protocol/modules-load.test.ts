/**
 * Every protocol module that validates outside input loads. A schema built wrongly when its module
 * loads (a discriminated union whose option lost its discriminator, say) throws there, and every
 * test file that imports the module fails before any of its tests runs: the mutation run
 * (docs/mutation.md) counts a file that fails to load as no test run, and such a change as one no
 * test noticed. Catching the import's failure here makes it a test's.
 */

import { describe, expect, it } from "vitest";

const modules: [string, () => Promise<object>][] = [
  ["device-frames", () => import("@edgeloop/protocol/device-frames")],
  ["http-bodies", () => import("@edgeloop/protocol/http-bodies")],
  ["mcp-input-schema", () => import("@edgeloop/protocol/mcp-input-schema")],
  ["skill-manifest", () => import("@edgeloop/protocol/skill-manifest")],
  ["approval-rules", () => import("@edgeloop/protocol/approval-rules")],
  ["pairing", () => import("@edgeloop/protocol/pairing")],
  ["the protocol's index", () => import("@edgeloop/protocol")],
];

// Loaded when the file is, not inside a test: the mutation run counts what a module does as it loads for
// every test (a static mutant), so each of them runs against a module built wrongly, this file's included.
const loaded = await Promise.all(
  modules.map(
    async ([name, load]) =>
      [
        name,
        await load().then(
          () => "loads",
          (e: unknown) => String(e),
        ),
      ] as const,
  ),
);

describe("the protocol's validators", () => {
  it.each(loaded)("%s loads", (_name, outcome) => {
    expect(outcome).toBe("loads");
  });
});
