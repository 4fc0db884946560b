import type { CostCounters } from "./cost-meter.js";

/**
 * Reads the cost meter's lines (cost-meter.ts) from a runtime's output: the last line of each
 * object instance is its running total. A snapshot is those totals; a delta between two snapshots
 * is what happened in between, summed by class.
 */
export type CostSnapshot = Map<string, CostCounters>;

export type CostTotals = {
  rows_read: number;
  rows_written: number;
  statements: number;
  /** the objects' implicit transactions that wrote (cost-meter.ts) */
  commits: number;
  /** commits by "Kind: tables written" */
  by_commit: Record<string, number>;
  /** the storage API's key-value calls, billed as rows on SQLite-backed objects */
  kv_rows_read: number;
  kv_rows_written: number;
  rpc: number;
  fetch: number;
  alarm: number;
  websocket_message: number;
  alarms_set: number;
  /** RPC calls by "Class.method" */
  rpc_by_method: Record<string, number>;
  /** by "Class: statement": [count, rows read, rows written] */
  by_statement: Record<string, [number, number, number]>;
};

const LINE = /\{"cost_meter":.*\}\}/g;

export function costSnapshot(output: string): CostSnapshot {
  const snapshot: CostSnapshot = new Map();
  for (const match of output.matchAll(LINE)) {
    const c = (JSON.parse(match[0]) as { cost_meter: CostCounters }).cost_meter;
    snapshot.set(`${c.class}|${c.id}|${c.instance}`, c);
  }
  return snapshot;
}

const zero = (): CostTotals => ({
  rows_read: 0,
  rows_written: 0,
  statements: 0,
  commits: 0,
  by_commit: {},
  kv_rows_read: 0,
  kv_rows_written: 0,
  rpc: 0,
  fetch: 0,
  alarm: 0,
  websocket_message: 0,
  alarms_set: 0,
  rpc_by_method: {},
  by_statement: {},
});

/** What `after` counted beyond `before`, by class, or by `kindOf` ("*" = all objects). */
export function costDelta(
  before: CostSnapshot,
  after: CostSnapshot,
  kindOf: (c: CostCounters) => string = (c) => c.class,
): Map<string, CostTotals> {
  const out = new Map<string, CostTotals>([["*", zero()]]);
  for (const [key, a] of after) {
    const b = before.get(key);
    for (const cls of [kindOf(a), "*"]) {
      const t = out.get(cls) ?? zero();
      out.set(cls, t);
      for (const f of [
        "rows_read",
        "rows_written",
        "statements",
        "commits",
        "kv_rows_read",
        "kv_rows_written",
        "alarms_set",
      ] as const)
        t[f] += (a[f] ?? 0) - (b?.[f] ?? 0);
      for (const f of ["fetch", "alarm", "websocket_message"] as const) t[f] += a.requests[f] - (b?.requests[f] ?? 0);
      for (const [q, [n, r, w]] of Object.entries(a.by_statement ?? {})) {
        const [bn, br, bw] = b?.by_statement?.[q] ?? [0, 0, 0];
        if (n === bn) continue;
        const key = `${kindOf(a)}: ${q}`;
        const t0 = t.by_statement[key] ?? [0, 0, 0];
        t.by_statement[key] = t0;
        t0[0] += n - bn;
        t0[1] += r - br;
        t0[2] += w - bw;
      }
      for (const [what, n] of Object.entries(a.by_commit ?? {})) {
        const d = n - (b?.by_commit?.[what] ?? 0);
        if (d) t.by_commit[`${kindOf(a)}: ${what}`] = (t.by_commit[`${kindOf(a)}: ${what}`] ?? 0) + d;
      }
      for (const [m, n] of Object.entries(a.requests.rpc)) {
        const d = n - (b?.requests.rpc[m] ?? 0);
        t.rpc += d;
        if (d) t.rpc_by_method[`${kindOf(a)}.${m}`] = (t.rpc_by_method[`${kindOf(a)}.${m}`] ?? 0) + d;
      }
    }
  }
  return out;
}

/** Cloudflare bills incoming WebSocket messages at 20 to one request. */
export const billedRequests = (t: CostTotals): number => t.rpc + t.fetch + t.alarm + t.websocket_message / 20;

/** Billed requests by class: what each kind of object is asked, from `costDelta`'s result. */
export function requestsByClass(delta: Map<string, CostTotals>): Record<string, number> {
  return Object.fromEntries(
    [...delta].filter(([cls, t]) => cls !== "*" && billedRequests(t) > 0).map(([cls, t]) => [cls, billedRequests(t)]),
  );
}
