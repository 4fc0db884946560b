import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Files that run for minutes although their source is small. Vitest starts the files it has no
 * timings for (every file of a fresh clone, as CI runs) largest source first, so these started
 * among the last and ran on alone at the end: bench-quick (about 220 s) ended 216th of 269.
 */
const LONG_FILES = ["test/e2e/bench-quick.test.ts"];

/** Vitest's order (projects, then failed and slow first), with the long files before the rest. */
export default class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => (LONG_FILES.some((l) => f.moduleId.endsWith(l)) ? 0 : 1);
    // Array.prototype.sort is stable: within each rank the base order stays.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
