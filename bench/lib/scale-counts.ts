/**
 * The counts docs/scale.md relies on (bench/scale-counts.json), and the check that a run's counted
 * requests by object class still match them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { REPO_ROOT } from "../../test/helpers/processes.js";

const Counts = z.record(z.string(), z.number().nonnegative());

export const ScaleCounts = z.object({
  why: z.string(),
  per_message: Counts,
  per_device_round: Counts,
  metrics_shards_default: z.number().int().positive(),
  object_soft_limit_rps: z.number().positive(),
  object_budget_rps: z.number().positive(),
});
export type ScaleCounts = z.infer<typeof ScaleCounts>;

export function readScaleCounts(): ScaleCounts {
  return ScaleCounts.parse(JSON.parse(readFileSync(join(REPO_ROOT, "bench/scale-counts.json"), "utf8")));
}

/**
 * Where counted requests by class differ from the document's: a class the document lists that is
 * off by more than `slack`, or a class it does not list that is asked at least `unlisted` times
 * (below that: a cache refresh, not a per-message or per-round request).
 */
export function countMismatches(
  documented: Record<string, number>,
  counted: Record<string, number>,
  slack = 0.25,
  unlisted = 0.5,
): string[] {
  const out: string[] = [];
  for (const [cls, n] of Object.entries(documented)) {
    const got = counted[cls] ?? 0;
    if (Math.abs(got - n) > slack) out.push(`${cls}: documented ${n}, counted ${got}`);
  }
  for (const [cls, got] of Object.entries(counted))
    if (!(cls in documented) && got >= unlisted) out.push(`${cls}: not documented, counted ${got}`);
  return out;
}
