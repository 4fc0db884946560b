/**
 * Targets judged on repeats (docs/benchmarks.md#noise): a latency ratio is measured in at least
 * three repetitions inside one run, each interleaved with its floor (A B A B …), and judged on
 * their median; the report shows each repetition and the spread.
 */
import type { Metric } from "./result.js";
import { round, summarize } from "./stats.js";

/** The fewest repetitions a ratio target is judged on. */
export const MIN_REPETITIONS = 3;

/** Splits samples taken in order into `k` consecutive blocks (the last ones take the remainder). */
export function blocks<T>(samples: T[], k = MIN_REPETITIONS): T[][] {
  const size = Math.floor(samples.length / k);
  if (size === 0) throw new Error(`${samples.length} samples cannot make ${k} repetitions`);
  return Array.from({ length: k }, (_, i) => samples.slice(i * size, i === k - 1 ? samples.length : (i + 1) * size));
}

/**
 * Per-repetition ratios of sample sets taken interleaved (sample i of each set side by side): each
 * block's median of `ours` over the sum of the block's medians of `floors`.
 */
export function blockRatios(ours: number[], floors: number[][], k = MIN_REPETITIONS): number[] {
  const mine = blocks(ours, k);
  const theirs = floors.map((f) => blocks(f, k));
  return mine.map((b, i) => {
    const floor = theirs.reduce((sum, f) => sum + summarize(f[i]!).median, 0);
    return summarize(b).median / floor;
  });
}

/** A ratio metric judged on the median of its repetitions. */
export function repeatedRatio(
  name: string,
  repetitions: number[],
  target: NonNullable<Metric["target"]>,
  note?: string,
): Metric {
  if (repetitions.length < MIN_REPETITIONS)
    throw new Error(`${name}: ${repetitions.length} repetitions, at least ${MIN_REPETITIONS} needed`);
  return {
    name,
    value: round(summarize(repetitions).median),
    unit: "ratio",
    target,
    repetitions: repetitions.map((r) => round(r)),
    ...(note ? { note } : {}),
  };
}
