import { Identifier } from "@edgeloop/protocol/ids";
import { z } from "zod";
import { MetricsReport } from "../api-schemas.js";
import { type Command, parseInput, positionals, printJson, SinceFlag } from "../command.js";
import { EXIT } from "../exit-codes.js";
import { duration, oneLine, percent } from "../output/format.js";
import { renderTable } from "../output/table.js";

const Flags = z.object({
  tools: z.boolean().optional(),
  agent: Identifier.optional(),
  since: SinceFlag.optional(),
});

/** GET /v1/metrics: loop numbers always, the per-tool table with --tools, the raw report with --json. */
export const metricsCommand: Command = {
  names: ["metrics"],
  synopsis: "metrics [--tools] [--agent id] [--since 24h] [--json]",
  summary: "loop and tool metrics (admin)",
  options: { tools: { type: "boolean" }, agent: { type: "string" }, since: { type: "string" } },
  async run({ client, json, values, positionals: args }) {
    positionals(args, [], this.synopsis);
    const flags = parseInput(Flags, values, this.synopsis);
    const q = new URLSearchParams();
    if (flags.agent) q.set("agent_id", flags.agent);
    if (flags.since !== undefined) q.set("since", String(flags.since));
    const report = await client.json(MetricsReport, `/v1/metrics${q.size ? `?${q}` : ""}`, { auth: "admin" });
    if (json) {
      printJson(report);
      return EXIT.ok;
    }
    printSummary(report, Boolean(flags.tools));
    if (flags.tools) printTools(report);
    return EXIT.ok;
  },
};

function printSummary(r: MetricsReport, withTools: boolean): void {
  const l = r.loop;
  const tools = r.tools.overall;
  const calls = tools.reduce((t, x) => t + x.total_calls, 0);
  const ok = tools.reduce((t, x) => t + x.success_count, 0);
  const list = (rec: Record<string, number>) =>
    Object.entries(rec)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ") || "-";
  console.log(`since          ${r.since}`);
  console.log(`messages       ${l.conversations} finished: ${list(l.by_status)}`);
  console.log(`stopped by     ${list(l.stopped_by)}`);
  console.log(
    `time to reply  p50 ${duration(l.time_to_reply_ms.p50)} · p95 ${duration(l.time_to_reply_ms.p95)} · max ${duration(l.time_to_reply_ms.max)}`,
  );
  console.log(`iterations     avg ${l.iterations.avg} · max ${l.iterations.max}`);
  for (const [model, m] of Object.entries(l.by_model)) {
    const cost = m.estimated_cost_usd === null ? "" : ` · ~$${m.estimated_cost_usd}`;
    console.log(`model          ${model}: ${m.tokens_in} tokens in, ${m.tokens_out} out${cost}`);
  }
  console.log(
    `tool calls     ${calls} (${percent(ok, calls)} succeeded) across ${tools.length} tool(s)${tools.length && !withTools ? "; --tools for each" : ""}`,
  );
}

function printTools(r: MetricsReport): void {
  if (r.tools.overall.length === 0) return;
  console.log("");
  console.log(
    renderTable(
      [
        { header: "tool", value: (t) => t.tool },
        { header: "calls", value: (t) => String(t.total_calls), align: "right" },
        { header: "ok", value: (t) => percent(t.success_count, t.total_calls), align: "right" },
        { header: "errors", value: (t) => String(t.error_count), align: "right" },
        { header: "timeouts", value: (t) => String(t.timeout_count), align: "right" },
        { header: "p50", value: (t) => duration(t.latency_ms.p50), align: "right" },
        { header: "p95", value: (t) => duration(t.latency_ms.p95), align: "right" },
        { header: "max", value: (t) => duration(t.latency_ms.max), align: "right" },
        { header: "last error", value: (t) => (t.last_error ? oneLine(t.last_error) : "-"), flex: true },
      ],
      r.tools.overall,
    ),
  );
}
