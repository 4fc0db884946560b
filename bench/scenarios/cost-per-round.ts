import { viewConversation } from "../../scripted-llm/conversation-view.js";
import { startAgent } from "../../test/helpers/device-agent.js";
import { API_TOKEN, type LocalWorker } from "../../test/helpers/local-worker.js";
import { waitUntil } from "../../test/helpers/wait.js";
import { BENCH_SKILLS, type BenchEnv, deviceToken, workerVars } from "../lib/bench-env.js";
import { commitKinds, commitsByWhat, minimumAmortized } from "../lib/commit-counts.js";
import { billedRequests, type CostTotals, costDelta, costSnapshot, requestsByClass } from "../lib/cost-log.js";
import type { CostCounters } from "../lib/cost-meter.js";
import { startCostWorker } from "../lib/cost-worker.js";
import type { FakeDevice } from "../lib/fake-device.js";
import { minimalRequestBytes } from "../lib/model-bytes.js";
import { type ModelProxy, startModelProxy } from "../lib/model-proxy.js";
import { objectKind, perDeploymentKinds } from "../lib/object-kinds.js";
import { packagedBundles } from "../lib/packaged-bundles.js";
import { peerChat, startPeerWorker } from "../lib/peer-worker.js";
import type { Metric, ScenarioResult } from "../lib/result.js";
import { countMismatches, readScaleCounts } from "../lib/scale-counts.js";
import { scopedKey } from "../lib/scoped-key.js";
import { round } from "../lib/stats.js";
import {
  connectPoolDevice,
  POOL,
  POOL_CASE_VARS,
  POOL_MESSAGES,
  POOL_RULE,
  poolMessageMetric,
} from "./cost-pool-message.js";

/**
 * Scenario 8: what one tool round costs in Cloudflare's billing units, counted (not estimated):
 * SQLite rows read and written from the storage cursors, requests into Durable Objects (RPC calls,
 * fetches, alarms, WebSocket messages) from the objects' entry points (bench/lib/cost-meter.ts),
 * and the bytes of every model request at a proxy in front of the model. Per round = (a message of
 * LONG rounds − a message of 1 round) / (LONG − 1), so what a message costs once (front door,
 * limits, metrics, the reply) is not charged to its rounds; that is reported apart.
 *
 * The minimum a durable loop needs per tool round, and why (one hub object per device, the design):
 * - rows written, built-in round: 2. The model's answer that asks for the call is written before
 *   the call runs (a restart must neither lose the call nor run it twice), and the call's result
 *   is written when it arrives (a restart must not run it again). Anything else is bookkeeping a
 *   design chose.
 * - rows written, device round: 4. The conversation's 2, and the hub's 2: the command, before the
 *   device may run it (the hub redelivers it after a reconnect or its own restart, and knows a
 *   repeat), and its outcome, when the device answers (the hub redelivers it to a conversation
 *   that did not take it, and recognises a late duplicate). The audit row is a product feature
 *   and costs no row of its own in this minimum: the outcome row can be the audit record (the
 *   same call, tool, time and result). A design that keeps them apart (edgeloop does: the audit
 *   is kept for its retention period, redacted, while the ledger keeps commands an hour) pays one
 *   more row, inside the 2×.
 * - rows read: 0. A running conversation holds its state in memory; storage is for restarts.
 * - requests: a device round with one hub per device needs the dispatch RPC into the hub, the
 *   device's result frame (a WebSocket message, billed 1/20) and the result RPC into the
 *   conversation: 2.05 billed requests. A built-in round needs none.
 * - bytes to the model: the same conversation as compact JSON with only the fields the model reads
 *   (bench/lib/model-bytes.ts).
 * Targets: ≤ 2× each minimum. The Agents SDK peer is counted the same way for the built-in round.
 */
const MIN = {
  device: { rows_written: 4, rows_read: 0, requests: 2.05 },
  builtin: { rows_written: 2, rows_read: 0, requests: 0 },
};

type Case = {
  cost: CostTotals;
  /** billed requests by object class */
  byClass: Record<string, number>;
  /** commits (write turns) by object kind */
  commitsByKind: Record<string, number>;
  bytes: number;
  headerBytes: number;
  minimalBytes: number;
  requests: number;
};

export async function costPerRound(env: BenchEnv): Promise<ScenarioResult> {
  const long = env.quick ? 4 : 11;
  const rules = (prefix: string, tool: string, args: Record<string, unknown>) =>
    [1, long].map((n) => ({
      match: `^${prefix}${n} `,
      turns: [
        ...Array.from({ length: n }, () => ({ tool_calls: [{ name: tool, arguments: args }] })),
        { content: "done" },
      ],
    }));
  env.llm.setRules([
    ...rules("bench cost device", "bench_ok", {}),
    ...rules("bench cost echo", "echo", { text: "hi" }),
    POOL_RULE,
  ]);
  // Objects are told apart by kind: a per-deployment object by its name, a sharded class as one.
  const singles = perDeploymentKinds();
  const kindOf = (c: CostCounters) => objectKind(singles, c.class, c.id);
  const proxy = await startModelProxy(env.llm.url);
  const [product, peer] = await Promise.allSettled([
    startCostWorker({ ...workerVars(proxy.url), ...POOL_CASE_VARS }),
    startPeerWorker({ llmUrl: proxy.url, meter: true }),
  ]);
  const started = [product, peer].flatMap((p) => (p.status === "fulfilled" ? [p.value] : []));
  if (product.status === "rejected" || peer.status === "rejected") {
    for (const w of started) await w.stop();
    await proxy.close();
    throw product.status === "rejected" ? product.reason : (peer as PromiseRejectedResult).reason;
  }
  const worker = product.value;
  const agent = await startAgent({
    url: worker.url,
    agentId: "bench-cost",
    token: deviceToken("bench-cost"),
    skills: [BENCH_SKILLS],
    bin: (await packagedBundles()).agent,
  }).catch(async (e) => {
    for (const w of started) await w.stop();
    await proxy.close();
    throw e;
  });
  const run = Date.now();
  let seq = 0;
  // Messages are sent with a scoped key, as an integration would: its check is on the path.
  const key = await scopedKey(worker, POOL).catch(async (e) => {
    await agent.stop();
    for (const w of started) await w.stop();
    await proxy.close();
    throw e;
  });
  const edgeloop = (kind: string, n: number) =>
    measure(worker, proxy, kindOf, `bench cost ${kind}${n} ${run} ${seq++}`, n, async (text) => {
      const res = await fetch(`${worker.url}/v1/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(kind === "pool" ? { pool: POOL, text } : { agent_id: "bench-cost", text }),
      });
      if (res.status !== 202) throw new Error(`cost: POST answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    });
  let device: [Case, Case];
  let builtin: [Case, Case];
  let sdk: [Case, Case];
  const pool: Case[] = [];
  let poolDevice: FakeDevice | undefined;
  try {
    poolDevice = await connectPoolDevice(worker.url);
    // Unmeasured first messages: what a runtime or an object does once (its first request to a
    // device's hub, a fresh isolate) is no message's cost.
    await edgeloop("device", 1);
    await edgeloop("echo", 1);
    // Every metrics shard started (a conversation's run goes to the shard its id hashes to): a
    // shard's first use is no round's cost.
    const listed = await fetch(`${worker.url}/v1/conversations`, { headers: { authorization: `Bearer ${API_TOKEN}` } });
    if (!listed.ok) throw new Error(`cost: GET /v1/conversations answered ${listed.status}`);
    await peerChat(peer.value.url, `cost-warm-${run}`, `bench cost echo1 ${run} warm`);
    device = [await edgeloop("device", 1), await edgeloop("device", long)];
    builtin = [await edgeloop("echo", 1), await edgeloop("echo", long)];
    const sdkCase = (n: number) =>
      measure(peer.value, proxy, kindOf, `bench cost echo${n} ${run} sdk`, n, (text) =>
        peerChat(peer.value.url, `cost-${n}-${run}`, text),
      );
    sdk = [await sdkCase(1), await sdkCase(long)];
    await edgeloop("pool", 1);
    for (let i = 0; i < POOL_MESSAGES; i++) pool.push(await edgeloop("pool", 1));
  } finally {
    poolDevice?.close();
    await agent.stop();
    for (const w of started) await w.stop();
    await proxy.close();
  }
  const perRound = ([one, many]: [Case, Case]) => {
    const d = (f: (c: Case) => number) => (f(many) - f(one)) / (long - 1);
    return {
      rows_written: d((c) => c.cost.rows_written + c.cost.kv_rows_written),
      rows_read: d((c) => c.cost.rows_read + c.cost.kv_rows_read),
      statements: d((c) => c.cost.statements),
      requests: d((c) => billedRequests(c.cost)),
      rpc: d((c) => c.cost.rpc),
      websocket_messages: d((c) => c.cost.websocket_message),
      alarms: d((c) => c.cost.alarm),
      bytes_ratio: many.bytes / many.minimalBytes,
      bytes_per_request: many.bytes / many.requests,
    };
  };
  const perMessage = ([one, many]: [Case, Case]) => {
    const r = perRound([one, many]);
    return {
      rows_written: one.cost.rows_written + one.cost.kv_rows_written - r.rows_written,
      rows_read: one.cost.rows_read + one.cost.kv_rows_read - r.rows_read,
      requests: billedRequests(one.cost) - r.requests,
    };
  };
  /** Where a round's rows go: per statement, per round, the heaviest first. */
  const byStatement = ([one, many]: [Case, Case]) => {
    const keys = new Set([...Object.keys(one.cost.by_statement), ...Object.keys(many.cost.by_statement)]);
    const rows = [...keys].map((k) => {
      const [n1, r1, w1] = one.cost.by_statement[k] ?? [0, 0, 0];
      const [n2, r2, w2] = many.cost.by_statement[k] ?? [0, 0, 0];
      const per = (a: number, b: number) => round((b - a) / (long - 1), 2);
      return { statement: k, count: per(n1, n2), rows_read: per(r1, r2), rows_written: per(w1, w2) };
    });
    return rows
      .filter((r) => r.count || r.rows_read || r.rows_written)
      .sort((a, b) => b.rows_written + b.rows_read - (a.rows_written + a.rows_read));
  };
  const dev = perRound(device);
  const bi = perRound(builtin);
  const kinds = { device: objectKinds(device, long), builtin: objectKinds(builtin, long) };
  const commits = { device: commitKinds(device, long), builtin: commitKinds(builtin, long) };
  const documented = readScaleCounts();
  // Per-deployment objects are judged by their own metric below (a key cache refresh may land in any message).
  const sharded = (byClass: Record<string, number>) =>
    Object.fromEntries(Object.entries(byClass).filter(([c]) => !singles.includes(c)));
  const scaleMismatches = [
    ...countMismatches(documented.per_message, sharded(kinds.device.per_message)).map((m) => `per message: ${m}`),
    ...countMismatches(documented.per_device_round, sharded(kinds.device.per_round), 0.1).map((m) => `per round: ${m}`),
  ];
  const onSingles = (byClass: Record<string, number>) =>
    round(
      singles.reduce((n, c) => n + (byClass[c] ?? 0), 0),
      2,
    );
  const peerRound = perRound(sdk);
  const metrics: Metric[] = [
    {
      name: "requests to per-deployment objects per message (rounds included)",
      value: onSingles(perMessageAll([...device, ...builtin])),
      unit: "count",
      target: { op: "<=", value: 0.5 },
      note: `objects that exist once per deployment (${singles.join(", ")}), over every measured message, sent with a scoped key; a per-message or per-round request would read ≥ 1, a trusted copy's refresh (once per bound per isolate, docs/architecture.md#trusted-copies) reads less. By kind: ${JSON.stringify(perMessageAll([...device, ...builtin]))}`,
    },
    {
      name: "counts docs/scale.md relies on that differ from the counted ones",
      value: scaleMismatches.length,
      unit: "count",
      target: { op: "==", value: 0 },
      note: scaleMismatches.join("; ") || "per message and per device round, by object class (bench/scale-counts.json)",
    },
    poolMessageMetric(perMessageAll(pool), singles),
    {
      name: "device tool round: commits, amortized over a 3-round message",
      value: commits.device.total.amortized,
      unit: "count",
      note: `by object kind (per round + per message / 3): ${JSON.stringify(commits.device.amortized)}; the design's minimum ${round(minimumAmortized(), 2)} (bench/lib/commit-counts.ts says which invariant needs each)`,
    },
    ...roundMetrics("device tool round", dev, MIN.device),
    ...roundMetrics("built-in tool round", bi, MIN.builtin),
    ...roundMetrics("Agents SDK peer, server-side tool round", peerRound, null),
    {
      name: "built-in round rows written, edgeloop / Agents SDK",
      value: round(bi.rows_written / peerRound.rows_written),
      unit: "ratio",
    },
    {
      name: "built-in round rows read, edgeloop / Agents SDK",
      value: round(bi.rows_read / peerRound.rows_read),
      unit: "ratio",
    },
  ];
  return {
    id: "cost_per_round",
    title: "8. Cost per tool round in Cloudflare's billing units (counted)",
    repetitions: long - 1,
    metrics,
    floor: `the least a durable loop needs per round: ${MIN.builtin.rows_written} rows written for a built-in round (the answer asking for the call, before it runs; the result) and ${MIN.device.rows_written} for a device round (those, and the hub's command before the device runs it and its outcome; the audit record can be the outcome row), 0 rows read (a running conversation holds its state in memory), ${MIN.device.requests} billed requests for a device round (dispatch RPC to the device's hub, the result's WebSocket message at 1/20, the result RPC to the conversation) and none for a built-in one, and the model request as compact JSON with only the fields the model reads. Per round = (a ${long}-round message − a 1-round message) / ${long - 1}`,
    details: {
      rounds_long: long,
      minimum: MIN,
      per_round: { device: dev, builtin: bi, agents_sdk: peerRound },
      per_round_by_statement: {
        device: byStatement(device),
        builtin: byStatement(builtin),
        agents_sdk: byStatement(sdk),
      },
      per_deployment_classes: singles,
      commits_by_object_kind: commits,
      commits_by_what: { device: commitsByWhat(device, long), builtin: commitsByWhat(builtin, long) },
      requests_by_object_kind: { ...kinds, per_message_all: perMessageAll([...device, ...builtin]) },
      rpc_per_round: {
        device: perMethod(device, long),
        builtin: perMethod(builtin, long),
      },
      per_message: { device: perMessage(device), builtin: perMessage(builtin), agents_sdk: perMessage(sdk) },
      counted: {
        device_1: device[0],
        [`device_${long}`]: device[1],
        builtin_1: builtin[0],
        [`builtin_${long}`]: builtin[1],
        sdk_1: sdk[0],
        [`sdk_${long}`]: sdk[1],
      },
    },
  };
}

/** Billed requests by object class, per tool round and per message (what a message costs once). */
function objectKinds(
  [one, many]: [Case, Case],
  long: number,
): { per_round: Record<string, number>; per_message: Record<string, number> } {
  const classes = new Set([...Object.keys(one.byClass), ...Object.keys(many.byClass)]);
  const perRound: Record<string, number> = {};
  const perMessage: Record<string, number> = {};
  for (const c of classes) {
    const r = ((many.byClass[c] ?? 0) - (one.byClass[c] ?? 0)) / (long - 1);
    const m = (one.byClass[c] ?? 0) - r;
    if (round(r, 2) !== 0) perRound[c] = round(r, 2);
    if (round(m, 2) !== 0) perMessage[c] = round(m, 2);
  }
  return { per_round: perRound, per_message: perMessage };
}

/** Billed requests by object class, per message over a set of measured messages (rounds included). */
function perMessageAll(cases: Case[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of cases) for (const [k, n] of Object.entries(c.byClass)) out[k] = (out[k] ?? 0) + n / cases.length;
  return Object.fromEntries(Object.entries(out).map(([k, n]) => [k, round(n, 2)]));
}

function perMethod([one, many]: [Case, Case], long: number): Record<string, number> {
  const keys = new Set([...Object.keys(one.cost.rpc_by_method), ...Object.keys(many.cost.rpc_by_method)]);
  return Object.fromEntries(
    [...keys].map((k) => [
      k,
      round(((many.cost.rpc_by_method[k] ?? 0) - (one.cost.rpc_by_method[k] ?? 0)) / (long - 1), 2),
    ]),
  );
}

function roundMetrics(
  what: string,
  r: { rows_written: number; rows_read: number; requests: number; bytes_ratio: number; statements: number },
  min: { rows_written: number; rows_read: number; requests: number } | null,
): Metric[] {
  const t = (value: number) => (min === null ? {} : { target: { op: "<=" as const, value } });
  return [
    {
      name: `${what}: SQLite rows written`,
      value: round(r.rows_written, 1),
      unit: "count",
      ...t(2 * (min?.rows_written ?? 0)),
    },
    {
      name: `${what}: SQLite rows read`,
      value: round(r.rows_read, 1),
      unit: "count",
      ...t(2 * (min?.rows_read ?? 0)),
    },
    {
      name: `${what}: billed Durable Object requests`,
      value: round(r.requests, 2),
      unit: "count",
      note: "RPC calls + fetches + alarms + WebSocket messages / 20",
      ...t(2 * (min?.requests ?? 0)),
    },
    {
      name: `${what}: request bytes sent to the model / the minimal request`,
      value: round(r.bytes_ratio),
      unit: "ratio",
      ...t(2),
    },
    { name: `${what}: SQL statements`, value: round(r.statements, 1), unit: "count" },
  ];
}

/** Runs one message and counts what it cost, from before it was sent until it has settled. */
async function measure(
  worker: LocalWorker,
  proxy: ModelProxy,
  kindOf: (c: CostCounters) => string,
  text: string,
  rounds: number,
  send: (text: string) => Promise<void>,
): Promise<Case> {
  const before = costSnapshot(worker.child.output());
  const mine = () => proxy.requests().filter((r) => viewConversation(r.body).user === text);
  await send(text);
  // Done when the model has been asked for the final answer; then let trailing writes land.
  await waitUntil(
    async () => mine().length,
    (n) => n >= rounds + 1,
    { timeoutMs: 60_000, intervalMs: 20, what: `model requests of "${text}"` },
  );
  await new Promise((r) => setTimeout(r, 600));
  const delta = costDelta(before, costSnapshot(worker.child.output()), kindOf);
  const reqs = mine();
  return {
    cost: delta.get("*")!,
    byClass: requestsByClass(delta),
    commitsByKind: Object.fromEntries(
      [...delta].filter(([k, t]) => k !== "*" && t.commits > 0).map(([k, t]) => [k, t.commits]),
    ),
    bytes: reqs.reduce((n, r) => n + r.body_bytes, 0),
    headerBytes: reqs.reduce((n, r) => n + r.header_bytes, 0),
    minimalBytes: reqs.reduce((n, r) => n + minimalRequestBytes(r.body), 0),
    requests: reqs.length,
  };
}
