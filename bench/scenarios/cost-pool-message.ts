import { deviceToken } from "../lib/bench-env.js";
import { FakeDevice } from "../lib/fake-device.js";
import type { Metric } from "../lib/result.js";

/**
 * The cost scenario's pool message: routed by its pool, to a device one of whose tools requires
 * approval, so the two paths that once asked an object shared by the whole deployment (the
 * registry's pool routing, the approval rules) are both on it. A simulated device answers.
 */
export const POOL = "bench-pool";
const POOL_DEVICE = "fleet-0";
const GATED_TOOL = "bench_gated";

/** Measured one after another, after an unmeasured one; the metric is their mean. */
export const POOL_MESSAGES = 3;

/** What the cost worker needs for it: the pool, and a tool that may need approval. */
export const POOL_CASE_VARS = { POOLS: `${POOL}:${POOL_DEVICE}`, TOOL_POLICIES: `${GATED_TOOL}:requires_approval` };

/** Its model turns: one device round (a tool that needs no approval), then the answer. */
export const POOL_RULE = {
  match: "^bench cost pool1 ",
  turns: [{ tool_calls: [{ name: "bench_ok", arguments: {} }] }, { content: "done" }],
};

export function connectPoolDevice(workerUrl: string): Promise<FakeDevice> {
  return FakeDevice.connect(workerUrl, POOL_DEVICE, deviceToken(POOL_DEVICE), [GATED_TOOL]);
}

/**
 * Requests to per-deployment objects per pool message, after an unmeasured one (which makes the
 * pool's registry follow its device). A trusted copy's refresh (the key's, the rules': once per
 * isolate per bound, docs/architecture.md#trusted-copies) may land in one of them, as in any
 * message; a request on the path would read ≥ 1.
 */
export function poolMessageMetric(byKind: Record<string, number>, perDeployment: string[]): Metric {
  const onSingles = perDeployment.reduce((n, k) => n + (byKind[k] ?? 0), 0);
  return {
    name: "pool message, its device's tools under approval policy: requests to per-deployment objects per message",
    value: Math.round(onSingles * 100) / 100,
    unit: "count",
    target: { op: "<=", value: 0.5 },
    note: `routed by pool '${POOL}' (its own registry), approval rules read from the isolate's copy; requests by object kind: ${JSON.stringify(byKind)}`,
  };
}
