import { type Distribution, distribution } from "./aggregate.js";

/** Per-tool numbers as a hub reports them (raw latencies, so percentiles can be merged exactly). */
export type ToolStatsInput = {
  tool: string;
  total: number;
  success: number;
  errors: number;
  errors_by_type: Record<string, number>;
  timeouts: number;
  latencies_ms: number[];
  last_error: string | null;
  last_error_at: number | null;
};

/** Per-tool metrics: calls, successes, failures by type, average latency with p50/p95/p99 beside it. */
export type ToolMetrics = {
  tool: string;
  total_calls: number;
  success_count: number;
  error_count: number;
  errors_by_type: Record<string, number>;
  timeout_count: number;
  latency_ms: Distribution;
  last_error: string | null;
  last_error_time: string | null;
};

export function toolMetrics(stats: ToolStatsInput[]): ToolMetrics[] {
  const merged = new Map<string, ToolStatsInput>();
  for (const s of stats) {
    const m = merged.get(s.tool);
    if (!m) {
      merged.set(s.tool, { ...s, errors_by_type: { ...s.errors_by_type }, latencies_ms: [...s.latencies_ms] });
      continue;
    }
    m.total += s.total;
    m.success += s.success;
    m.errors += s.errors;
    m.timeouts += s.timeouts;
    for (const [k, v] of Object.entries(s.errors_by_type)) m.errors_by_type[k] = (m.errors_by_type[k] ?? 0) + v;
    m.latencies_ms.push(...s.latencies_ms);
    if (s.last_error_at !== null && (m.last_error_at === null || s.last_error_at > m.last_error_at)) {
      m.last_error = s.last_error;
      m.last_error_at = s.last_error_at;
    }
  }
  return [...merged.values()]
    .map((m) => ({
      tool: m.tool,
      total_calls: m.total,
      success_count: m.success,
      error_count: m.errors,
      errors_by_type: m.errors_by_type,
      timeout_count: m.timeouts,
      latency_ms: distribution(m.latencies_ms),
      last_error: m.last_error,
      last_error_time: m.last_error_at === null ? null : new Date(m.last_error_at).toISOString(),
    }))
    .sort((a, b) => b.total_calls - a.total_calls || a.tool.localeCompare(b.tool));
}
