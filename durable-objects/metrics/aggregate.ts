import type { RunMetrics } from "../conversation/core/types.js";

/**
 * Metrics aggregation, pure: shards hold raw recent samples and counters; a read merges shards and
 * computes percentiles. Kept free of I/O so Node tests and workerd agree.
 */
export type RunRecord = RunMetrics & {
  at: number;
  model: string;
  agent_id: string;
  status: string;
  stop_reason: string;
};

export type Distribution = { count: number; avg: number; p50: number; p95: number; p99: number; max: number };

export type LoopMetrics = {
  conversations: number;
  by_status: Record<string, number>;
  stopped_by: Record<string, number>;
  time_to_reply_ms: Distribution;
  iterations: Distribution;
  tool_calls_per_conversation: Distribution;
  parallel_batches: number;
  max_concurrency: number;
  wall_time_saved_ms: number;
  by_model: Record<
    string,
    { conversations: number; tokens_in: number; tokens_out: number; estimated_cost_usd: number | null }
  >;
};

export type Prices = Record<string, { input_per_mtok: number; output_per_mtok: number }>;

export function distribution(values: number[]): Distribution {
  if (values.length === 0) return { count: 0, avg: 0, p50: 0, p95: 0, p99: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  const sum = sorted.reduce((t, v) => t + v, 0);
  return {
    count: sorted.length,
    avg: Math.round((sum / sorted.length) * 100) / 100,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    max: sorted[sorted.length - 1]!,
  };
}

export function loopMetrics(records: RunRecord[], prices: Prices = {}): LoopMetrics {
  const count = (key: (r: RunRecord) => string) =>
    records.reduce<Record<string, number>>((acc, r) => {
      acc[key(r)] = (acc[key(r)] ?? 0) + 1;
      return acc;
    }, {});
  const by_model: LoopMetrics["by_model"] = {};
  for (const r of records) {
    const m = by_model[r.model] ?? { conversations: 0, tokens_in: 0, tokens_out: 0, estimated_cost_usd: null };
    by_model[r.model] = m;
    m.conversations += 1;
    m.tokens_in += r.tokens_in;
    m.tokens_out += r.tokens_out;
  }
  for (const [model, m] of Object.entries(by_model)) {
    const price = prices[model];
    if (price)
      m.estimated_cost_usd =
        Math.round(((m.tokens_in * price.input_per_mtok + m.tokens_out * price.output_per_mtok) / 1e6) * 1e6) / 1e6;
  }
  return {
    conversations: records.length,
    by_status: count((r) => r.status),
    stopped_by: count((r) => r.stop_reason),
    time_to_reply_ms: distribution(records.map((r) => r.duration_ms)),
    iterations: distribution(records.map((r) => r.iterations)),
    tool_calls_per_conversation: distribution(records.map((r) => r.tool_calls)),
    parallel_batches: records.reduce((t, r) => t + r.parallel_batches, 0),
    max_concurrency: records.reduce((t, r) => Math.max(t, r.max_concurrency), 0),
    wall_time_saved_ms: records.reduce((t, r) => t + r.wall_saved_ms, 0),
    by_model,
  };
}

/** Conversations spread over shards by a stable hash of their id. */
export function shardFor(conversationId: string, shards: number): number {
  let h = 2166136261;
  for (let i = 0; i < conversationId.length; i++) {
    h ^= conversationId.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return (h >>> 0) % shards;
}
