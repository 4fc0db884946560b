import { describe, expect, it } from "vitest";
import { distribution, loopMetrics, type RunRecord, shardFor } from "../../../durable-objects/metrics/aggregate.js";

function run(over: Partial<RunRecord>): RunRecord {
  return {
    at: 0,
    model: "m",
    agent_id: "pi-1",
    status: "completed",
    stop_reason: "answer",
    duration_ms: 100,
    iterations: 2,
    tool_calls: 1,
    tool_errors: 0,
    tokens_in: 100,
    tokens_out: 10,
    parallel_batches: 0,
    max_concurrency: 1,
    wall_saved_ms: 0,
    ...over,
  };
}

describe("metrics aggregation", () => {
  it("computes nearest-rank percentiles", () => {
    const d = distribution(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(d).toEqual({ count: 100, avg: 50.5, p50: 50, p95: 95, p99: 99, max: 100 });
    expect(distribution([])).toMatchObject({ count: 0, p99: 0 });
  });

  it("counts stop reasons, sums tokens per model and estimates cost from the price table", () => {
    const m = loopMetrics(
      [
        run({ stop_reason: "answer", tokens_in: 1_000_000, tokens_out: 500_000 }),
        run({ stop_reason: "max_iterations", status: "completed" }),
        run({ model: "other", stop_reason: "llm_error", status: "failed" }),
      ],
      { m: { input_per_mtok: 0.15, output_per_mtok: 0.6 } },
    );
    expect(m.stopped_by).toEqual({ answer: 1, max_iterations: 1, llm_error: 1 });
    expect(m.by_status).toEqual({ completed: 2, failed: 1 });
    expect(m.by_model.m).toEqual({
      conversations: 2,
      tokens_in: 1_000_100,
      tokens_out: 500_010,
      estimated_cost_usd: 0.450021,
    });
    expect(m.by_model.other!.estimated_cost_usd).toBeNull();
  });

  it("spreads conversations over shards stably", () => {
    expect(shardFor("conv-a", 8)).toBe(shardFor("conv-a", 8));
    const used = new Set(Array.from({ length: 200 }, (_, i) => shardFor(`conv_${i}`, 8)));
    expect(used.size).toBe(8);
  });
});
