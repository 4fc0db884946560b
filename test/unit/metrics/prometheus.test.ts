import { describe, expect, it } from "vitest";
import { loopMetrics } from "../../../durable-objects/metrics/aggregate.js";
import { toPrometheus } from "../../../durable-objects/metrics/prometheus.js";
import { toolMetrics } from "../../../durable-objects/metrics/tool-metrics.js";

const stats = (over: Partial<Parameters<typeof toolMetrics>[0][number]>) => ({
  tool: "bash",
  total: 2,
  success: 1,
  errors: 1,
  errors_by_type: { timeout: 1 },
  timeouts: 1,
  latencies_ms: [10, 30],
  last_error: "timed out",
  last_error_at: 1000,
  ...over,
});

describe("tool metrics", () => {
  it("merges devices exactly: counts add up, percentiles over all samples, newest last error wins", () => {
    const [bash] = toolMetrics([
      stats({}),
      stats({
        total: 1,
        success: 1,
        errors: 0,
        errors_by_type: {},
        timeouts: 0,
        latencies_ms: [20],
        last_error: "newer",
        last_error_at: 2000,
      }),
    ]);
    expect(bash).toMatchObject({
      tool: "bash",
      total_calls: 3,
      success_count: 2,
      error_count: 1,
      timeout_count: 1,
      errors_by_type: { timeout: 1 },
    });
    expect(bash!.latency_ms).toMatchObject({ count: 3, p50: 20, max: 30, avg: 20 });
    expect(bash!.last_error).toBe("newer");
    expect(bash!.last_error_time).toBe(new Date(2000).toISOString());
  });
});

describe("Prometheus exposition", () => {
  it("writes typed families with labels a scraper can parse", () => {
    const text = toPrometheus({
      generated_at: "x",
      since: "y",
      tools: { overall: toolMetrics([stats({})]), by_device: { 'pi"1': toolMetrics([stats({})]) } },
      loop: loopMetrics([
        {
          at: 0,
          model: "m",
          agent_id: "pi-1",
          status: "completed",
          stop_reason: "answer",
          duration_ms: 100,
          iterations: 2,
          tool_calls: 1,
          tool_errors: 0,
          tokens_in: 5,
          tokens_out: 7,
          parallel_batches: 1,
          max_concurrency: 3,
          wall_saved_ms: 40,
        },
      ]),
    });
    const lines = text.trim().split("\n");
    expect(lines).toContain("# TYPE edgeloop_tool_calls_total counter");
    expect(lines).toContain('edgeloop_tool_calls_total{agent_id="pi\\"1",tool="bash",status="success"} 1');
    expect(lines).toContain('edgeloop_tool_errors_total{agent_id="pi\\"1",tool="bash",error_type="timeout"} 1');
    expect(lines).toContain('edgeloop_tool_latency_ms{agent_id="pi\\"1",tool="bash",quantile="0.99"} 30');
    expect(lines).toContain('edgeloop_stopped_total{reason="answer"} 1');
    expect(lines).toContain('edgeloop_tokens_total{model="m",direction="out"} 7');
    expect(lines).toContain("edgeloop_max_concurrency 3");
    // Every sample line is `name{labels} number` or `name number`.
    for (const l of lines.filter((l) => !l.startsWith("#"))) expect(l).toMatch(/^[a-z_]+(\{.*\})? -?[0-9.e+]+$/);
  });
});
