/**
 * A vitest reporter (listed in vitest.config.ts after the default one) that closes every run with
 * one plain line, `vitest: N passed, N failed, N skipped`, and fails the run when any test was
 * skipped: a test that cannot run on this machine must fail with a reason, never pass by skipping.
 * A run narrowed with `-t` skips the tests it leaves out on purpose, so there skips are only counted.
 */
import type { Reporter, SerializedError, TestModule, Vitest } from "vitest/node";

export default class SkipCountReporter implements Reporter {
  private narrowed = false;

  onInit(vitest: Vitest): void {
    this.narrowed = vitest.config.testNamePattern !== undefined;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    let passed = 0;
    // A file that failed to load has no tests to count; it is a failure all the same.
    let failed = unhandledErrors.length;
    const skipped: string[] = [];
    for (const module of modules) {
      if (module.errors().length > 0) failed++;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else if (state === "skipped")
          skipped.push(`${module.project.name} ${module.relativeModuleId} > ${test.fullName}`);
      }
    }
    const out = process.stdout;
    if (skipped.length > 0 && !this.narrowed) {
      out.write(`\nSkipped tests (the suite allows none; make each one run, or fail with the reason it cannot):\n`);
      for (const name of skipped) out.write(`  - ${name}\n`);
      process.exitCode = 1;
    }
    out.write(`\nvitest: ${passed} passed, ${failed} failed, ${skipped.length} skipped\n`);
  }
}
