import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { countMismatches, readScaleCounts } from "../../../bench/lib/scale-counts.js";
import { REPO_ROOT } from "../../helpers/processes.js";

/** The rows of docs/scale.md's table: object kind → [per message, per device round]. */
function tableRows(md: string): Map<string, [number, number]> {
  const rows = new Map<string, [number, number]>();
  for (const m of md.matchAll(/^\| `(\w+DO)`\s*\|[^|]*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|$/gm))
    rows.set(m[1]!, [Number(m[2]), Number(m[3])]);
  return rows;
}

describe("docs/scale.md", () => {
  const counts = readScaleCounts();
  const md = readFileSync(join(REPO_ROOT, "docs/scale.md"), "utf8");

  it("lists exactly the per-message and per-round counts the bench checks", () => {
    const rows = tableRows(md);
    const kinds = new Set([...Object.keys(counts.per_message), ...Object.keys(counts.per_device_round)]);
    expect([...rows.keys()].sort()).toEqual([...kinds].sort());
    for (const [kind, [perMessage, perRound]] of rows) {
      expect(perMessage, kind).toBe(counts.per_message[kind] ?? 0);
      expect(perRound, kind).toBe(counts.per_device_round[kind] ?? 0);
    }
  });

  it("derives the deployment's ceiling from the metrics shards and the object budget", () => {
    const ceiling = (counts.object_budget_rps * counts.metrics_shards_default) / counts.per_message.MetricsShardDO!;
    expect(md).toContain(`M ≤ ~${(Math.round(ceiling / 100) * 100).toLocaleString("en-US")} messages a`);
  });
});

describe("the bench's check of the counts", () => {
  it("flags a documented class that drifted and an undocumented class asked per message", () => {
    expect(countMismatches({ A: 1, B: 2 }, { A: 1.1, B: 2 })).toEqual([]);
    expect(countMismatches({ A: 1 }, { A: 2 })).toEqual(["A: documented 1, counted 2"]);
    expect(countMismatches({ A: 1 }, { A: 1, C: 1 })).toEqual(["C: not documented, counted 1"]);
    expect(countMismatches({ A: 1 }, { A: 1, C: 0.2 })).toEqual([]);
  });
});
