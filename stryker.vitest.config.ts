import { resolve } from "node:path";
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import base from "./vitest.config.js";

// The mutation run (stryker.config.json) uses the unit project only: pure logic in Node, no workerd,
// no real processes, so each mutant is judged in seconds. The rest of vitest.config.ts is kept as is.
const projects = (base.test?.projects ?? []) as TestProjectInlineConfiguration[];

// Stryker's sandbox links node_modules back to the project, so `@edgeloop/protocol` would resolve to
// the unmutated workspace: point it at the sandbox's own copy, where the mutants are.
const protocol = resolve(import.meta.dirname, "protocol");
const alias = [
  { find: /^@edgeloop\/protocol$/, replacement: `${protocol}/index.ts` },
  { find: /^@edgeloop\/protocol\/(.*)$/, replacement: `${protocol}/$1.ts` },
];

// The loop's property tests (test/unit/loop/loop-properties.test.ts) cover every core file: with a fixed seed and
// fewer sequences, each mutant meets the same sequences and a score does not change from run to run.
const properties = { LOOP_PROPERTIES_SEED: "1", LOOP_PROPERTIES_RUNS: "20" };

// Tests that read the repository's source through git (house rules, the platform seam) judge layout, not
// behaviour, and find no tracked files in Stryker's sandbox (it lies in the ignored .stryker-tmp/).
const readsSourceThroughGit = ["test/unit/layout/**", "test/unit/channels/platform-list.test.ts"];

export default defineConfig({
  test: {
    projects: projects
      .filter((p) => p.test?.name === "unit")
      .map((p) => ({
        ...p,
        resolve: { alias },
        test: {
          ...p.test,
          exclude: [...(p.test?.exclude ?? configDefaults.exclude), ...readsSourceThroughGit],
          env: { ...p.test?.env, ...properties },
        },
      })),
  },
});
