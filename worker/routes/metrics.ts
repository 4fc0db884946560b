import { Identifier, SinceParam } from "@edgeloop/protocol";
import { Hono } from "hono";
import { z } from "zod";
import { allMetricsShards, hubFor, registryOf } from "../../durable-objects/addresses.js";
import { loopMetrics, type Prices, type RunRecord } from "../../durable-objects/metrics/aggregate.js";
import { type MetricsReport, toPrometheus } from "../../durable-objects/metrics/prometheus.js";
import { type ToolStatsInput, toolMetrics } from "../../durable-objects/metrics/tool-metrics.js";
import { invalidQuery, problemResponse } from "../../runtime/problem.js";
import type { AppEnv } from "../env.js";
import { authorizeAdmin } from "../middleware/authorize.js";

export const metrics = new Hono<AppEnv>();

const Query = z.object({
  // Same forms as /v1/audit: unix milliseconds or an ISO date.
  since: SinceParam.optional(),
  // Validated like every other agent id: an unchecked one would create a hub object just to read it.
  agent_id: Identifier.optional(),
  // For scrapers that cannot set Accept: ?format=prometheus
  format: z.enum(["json", "prometheus"]).optional(),
});

const PriceTable = z.record(
  z.string(),
  z.object({ input_per_mtok: z.number().nonnegative(), output_per_mtok: z.number().nonnegative() }),
);

/**
 * GET /v1/metrics: tool metrics from each device's hub (its audit rows), loop metrics from the
 * metrics shards. Reads fan out; writes never meet in one object. JSON by default, Prometheus
 * text with `Accept: text/plain`.
 */
metrics.get("/", authorizeAdmin, async (c) => {
  const q = Query.safeParse(c.req.query());
  if (!q.success) return invalidQuery(q.error);
  let prices: Prices = {};
  if (c.env.LLM_PRICES) {
    try {
      prices = PriceTable.parse(JSON.parse(c.env.LLM_PRICES));
    } catch (e) {
      return problemResponse(500, "Server misconfigured", `LLM_PRICES: ${(e as Error).message.slice(0, 200)}`);
    }
  }
  const since = q.data.since ?? Date.now() - 24 * 3600 * 1000;
  const devices = q.data.agent_id ? [q.data.agent_id] : (await registryOf(c.env).list()).map((d) => d.agent_id);
  const byDevice: Record<string, ToolStatsInput[]> = {};
  await Promise.all(
    devices.map(async (id) => {
      byDevice[id] = await hubFor(c.env, id).toolMetrics(since);
    }),
  );
  const runs: RunRecord[] = [];
  const shards = await Promise.all(allMetricsShards(c.env).map((shard) => shard.runs(since)));
  for (const rows of shards) runs.push(...rows.filter((r) => !q.data.agent_id || r.agent_id === q.data.agent_id));
  const report: MetricsReport = {
    generated_at: new Date().toISOString(),
    since: new Date(since).toISOString(),
    tools: {
      overall: toolMetrics(Object.values(byDevice).flat()),
      by_device: Object.fromEntries(Object.entries(byDevice).map(([id, stats]) => [id, toolMetrics(stats)])),
    },
    loop: loopMetrics(runs, prices),
  };
  const prometheus = q.data.format
    ? q.data.format === "prometheus"
    : (c.req.header("accept") ?? "").includes("text/plain");
  if (prometheus) {
    return c.body(toPrometheus(report), 200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
  }
  return c.json(report);
});
