import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import base from "./vitest.config.js";

// The mutation run (stryker.config.json) uses the unit project only: pure logic in Node, no workerd,
// no real processes, so each mutant is judged in seconds. The rest of vitest.config.ts is kept as is.
const projects = (base.test?.projects ?? []) as TestProjectInlineConfiguration[];

export default defineConfig({
  test: {
    projects: projects.filter((p) => p.test?.name === "unit"),
  },
});
