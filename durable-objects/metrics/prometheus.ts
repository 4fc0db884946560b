import type { Distribution, LoopMetrics } from "./aggregate.js";
import type { ToolMetrics } from "./tool-metrics.js";

export type MetricsReport = {
  generated_at: string;
  since: string;
  tools: { overall: ToolMetrics[]; by_device: Record<string, ToolMetrics[]> };
  loop: LoopMetrics;
};

/** Prometheus text exposition (version 0.0.4), so an existing Prometheus/Grafana stack can scrape it. */
export function toPrometheus(report: MetricsReport): string {
  const out: string[] = [];
  const family = (name: string, type: "counter" | "gauge" | "summary", help: string) =>
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
  const line = (name: string, labels: Record<string, string>, value: number) => {
    const l = Object.entries(labels)
      .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
      .join(",");
    out.push(`${name}${l ? `{${l}}` : ""} ${Number.isFinite(value) ? value : 0}`);
  };
  const summary = (name: string, labels: Record<string, string>, d: Distribution) => {
    for (const [q, v] of [
      ["0.5", d.p50],
      ["0.95", d.p95],
      ["0.99", d.p99],
    ] as const)
      line(name, { ...labels, quantile: q }, v);
    line(`${name}_sum`, labels, d.avg * d.count);
    line(`${name}_count`, labels, d.count);
  };

  family("edgeloop_tool_calls_total", "counter", "Tool calls by device, tool and status.");
  for (const [agent, tools] of Object.entries(report.tools.by_device)) {
    for (const t of tools) {
      line("edgeloop_tool_calls_total", { agent_id: agent, tool: t.tool, status: "success" }, t.success_count);
      line("edgeloop_tool_calls_total", { agent_id: agent, tool: t.tool, status: "error" }, t.error_count);
    }
  }
  family("edgeloop_tool_errors_total", "counter", "Tool errors by device, tool and error_type.");
  for (const [agent, tools] of Object.entries(report.tools.by_device)) {
    for (const t of tools)
      for (const [type, n] of Object.entries(t.errors_by_type))
        line("edgeloop_tool_errors_total", { agent_id: agent, tool: t.tool, error_type: type }, n);
  }
  family("edgeloop_tool_latency_ms", "summary", "Tool latency on the device, in milliseconds.");
  for (const [agent, tools] of Object.entries(report.tools.by_device)) {
    for (const t of tools) summary("edgeloop_tool_latency_ms", { agent_id: agent, tool: t.tool }, t.latency_ms);
  }
  family("edgeloop_conversations_total", "counter", "Finished messages by final status.");
  for (const [status, n] of Object.entries(report.loop.by_status)) line("edgeloop_conversations_total", { status }, n);
  family("edgeloop_stopped_total", "counter", "Finished messages by what stopped the loop.");
  for (const [reason, n] of Object.entries(report.loop.stopped_by)) line("edgeloop_stopped_total", { reason }, n);
  family("edgeloop_time_to_reply_ms", "summary", "Time from message to final reply, in milliseconds.");
  summary("edgeloop_time_to_reply_ms", {}, report.loop.time_to_reply_ms);
  family("edgeloop_iterations", "summary", "LLM calls per message.");
  summary("edgeloop_iterations", {}, report.loop.iterations);
  family("edgeloop_tool_calls_per_conversation", "summary", "Tool calls per message.");
  summary("edgeloop_tool_calls_per_conversation", {}, report.loop.tool_calls_per_conversation);
  family("edgeloop_parallel_batches_total", "counter", "Responses whose tool calls ran in parallel.");
  line("edgeloop_parallel_batches_total", {}, report.loop.parallel_batches);
  family("edgeloop_max_concurrency", "gauge", "Most tool calls of one response in flight at once.");
  line("edgeloop_max_concurrency", {}, report.loop.max_concurrency);
  family("edgeloop_wall_time_saved_ms_total", "counter", "Sum of parallel calls' times minus their rounds' wall time.");
  line("edgeloop_wall_time_saved_ms_total", {}, report.loop.wall_time_saved_ms);
  family("edgeloop_tokens_total", "counter", "LLM tokens by model and direction.");
  for (const [model, m] of Object.entries(report.loop.by_model)) {
    line("edgeloop_tokens_total", { model, direction: "in" }, m.tokens_in);
    line("edgeloop_tokens_total", { model, direction: "out" }, m.tokens_out);
  }
  family("edgeloop_estimated_cost_usd_total", "counter", "Estimated LLM cost by model, from the LLM_PRICES table.");
  for (const [model, m] of Object.entries(report.loop.by_model))
    if (m.estimated_cost_usd !== null) line("edgeloop_estimated_cost_usd_total", { model }, m.estimated_cost_usd);
  return `${out.join("\n")}\n`;
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}
