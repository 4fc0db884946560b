import { describe, expect, it } from "vitest";
import { blockRatios, blocks, repeatedRatio } from "../../../bench/lib/repeats.js";
import { targetChecks } from "../../../bench/lib/report.js";
import { straddles } from "../../../bench/lib/result.js";

describe("targets judged on repeats", () => {
  it("splits samples in order into three blocks, the last taking the remainder", () => {
    expect(blocks([1, 2, 3, 4, 5, 6, 7])).toEqual([
      [1, 2],
      [3, 4],
      [5, 6, 7],
    ]);
    expect(() => blocks([1, 2])).toThrow(/3 repetitions/);
  });

  it("divides each block's median by the sum of its floors' medians", () => {
    const ours = [10, 12, 11, 20, 20, 20, 30, 31, 29];
    const floorA = [5, 5, 5, 5, 5, 5, 5, 5, 5];
    const floorB = [5, 5, 5, 5, 5, 5, 10, 10, 10];
    expect(blockRatios(ours, [floorA, floorB])).toEqual([1.1, 2, 2]);
  });

  it("judges on the median and says when the spread straddles the target", () => {
    const m = repeatedRatio("r", [1.3, 1.0, 1.1], { op: "<=", value: 1.25 });
    expect(m.value).toBe(1.1);
    expect(m.repetitions).toEqual([1.3, 1, 1.1]);
    expect(straddles(m)).toBe(true);
    expect(straddles(repeatedRatio("r", [1.0, 1.1, 1.2], { op: "<=", value: 1.25 }))).toBe(false);
    expect(() => repeatedRatio("r", [1, 1], { op: "<=", value: 1 })).toThrow(/at least 3/);
  });

  it("lists each repeated target with its repetitions, spread and verdict", () => {
    const [check] = targetChecks({
      date: "",
      quick: true,
      command: "",
      runtime: "",
      duration_s: 0,
      machine: { cores: 2, cpu: "", memory_gb: 1, node: "", wrangler: "", platform: "" },
      scenarios: [
        {
          id: "s",
          title: "s",
          repetitions: 3,
          details: {},
          metrics: [repeatedRatio("r", [0.9, 1.4, 1.2], { op: "<=", value: 1.25 })],
        },
      ],
      failed: [],
    });
    expect(check).toMatchObject({
      value: 1.2,
      met: true,
      repetitions: [0.9, 1.4, 1.2],
      spread: { min: 0.9, max: 1.4 },
      straddles: true,
    });
  });
});
