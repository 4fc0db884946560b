/** Median and p99 of a sample set, with its size: what every scenario reports. */
export type Summary = { n: number; median: number; p99: number; min: number; max: number; mean: number };

export function summarize(samples: number[]): Summary {
  if (samples.length === 0) return { n: 0, median: NaN, p99: NaN, min: NaN, max: NaN, mean: NaN };
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    median: quantile(s, 0.5),
    p99: quantile(s, 0.99),
    min: s[0]!,
    max: s[s.length - 1]!,
    mean: s.reduce((a, b) => a + b, 0) / s.length,
  };
}

/** Linear interpolation between closest ranks, on sorted input. */
function quantile(sorted: number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** Rounded for the report: 2 decimals is finer than any of these measurements. */
export const round = (x: number, digits = 2): number => (Number.isFinite(x) ? Number(x.toFixed(digits)) : x);

export function roundSummary(s: Summary): Summary {
  return {
    n: s.n,
    median: round(s.median),
    p99: round(s.p99),
    min: round(s.min),
    max: round(s.max),
    mean: round(s.mean),
  };
}
