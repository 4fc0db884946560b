/**
 * Commits per device round by object kind (issue 40): what the cost scenario counts, beside the
 * least the invariants need and which invariant that is (docs/architecture.md#invariants-of-the-shell).
 * A commit is one implicit transaction of one object (bench/lib/cost-meter.ts counts them); locally
 * each is a disk flush on the runtime's one thread, in production a replication round trip.
 */
import { round } from "./stats.js";

/** The rounds a fleet message makes (bench/scenarios/fleet-load.ts): what a message's commits are amortized over. */
export const AMORTIZED_OVER = 3;

/** The design's minimum per device round and per message, by object kind, and why each is needed. */
export const COMMIT_MINIMUM: Record<string, { per_round: number; per_message: number; why: string }> = {
  ConversationDO: {
    per_round: 2,
    per_message: 2,
    why: "per round: the step that asks for the call, before dispatch (commit before perform), and the result (a restart must not run the call again); per message: the message taken with its id (at most once by message id: the front door's retry is answered as the first time) and the final answer (the reply survives a restart)",
  },
  DeviceHubDO: {
    per_round: 2,
    per_message: 0,
    why: "per round: the command's ledger row, before the device may run it (one hub per device with its ledger: redelivery after a reconnect, at most once by request id), and its outcome (redelivered to a conversation that did not take it; the ack waits on it: output gates)",
  },
  LimiterDO: {
    per_round: 0,
    per_message: 0,
    why: "no invariant: a rate limit is a product feature; its state may live in memory if losing it on an eviction is acceptable",
  },
  MetricsShardDO: {
    per_round: 0,
    per_message: 0,
    why: "no invariant: the conversation index and run metrics are product features; per message they can ride one write",
  },
};

type Counted = { commitsByKind: Record<string, number> };

export type CommitKinds = {
  /** each more round's commits: (a LONG-round message − a 1-round message) / (LONG − 1) */
  per_round: Record<string, number>;
  /** what a message commits once, whatever its rounds */
  per_message: Record<string, number>;
  /** per device round at AMORTIZED_OVER rounds a message: per_round + per_message / AMORTIZED_OVER */
  amortized: Record<string, number>;
  /** the same three, summed over the kinds */
  total: { per_round: number; per_message: number; amortized: number };
};

/** Commits by object kind, per round, per message and amortized, from a 1-round and a LONG-round message. */
export function commitKinds([one, many]: [Counted, Counted], long: number): CommitKinds {
  const kinds = new Set([...Object.keys(one.commitsByKind), ...Object.keys(many.commitsByKind)]);
  const out: CommitKinds = {
    per_round: {},
    per_message: {},
    amortized: {},
    total: { per_round: 0, per_message: 0, amortized: 0 },
  };
  for (const k of [...kinds].sort()) {
    const r = ((many.commitsByKind[k] ?? 0) - (one.commitsByKind[k] ?? 0)) / (long - 1);
    const m = (one.commitsByKind[k] ?? 0) - r;
    out.per_round[k] = round(r, 2);
    out.per_message[k] = round(m, 2);
    out.amortized[k] = round(r + m / AMORTIZED_OVER, 2);
    out.total.per_round += r;
    out.total.per_message += m;
  }
  out.total.amortized = round(out.total.per_round + out.total.per_message / AMORTIZED_OVER, 2);
  out.total.per_round = round(out.total.per_round, 2);
  out.total.per_message = round(out.total.per_message, 2);
  return out;
}

/** The design's minimum per device round, amortized the same way. */
export function minimumAmortized(): number {
  return Object.values(COMMIT_MINIMUM).reduce((n, m) => n + m.per_round + m.per_message / AMORTIZED_OVER, 0);
}

/** A Markdown table (docs/benchmarks.md#commits-per-device-round): counted beside the minimum, by kind. */
export function commitTable(c: CommitKinds): string {
  const kinds = [...new Set([...Object.keys(c.amortized), ...Object.keys(COMMIT_MINIMUM)])];
  const rows = kinds.map((k) => {
    const min = COMMIT_MINIMUM[k];
    return `| \`${k}\` | ${c.per_round[k] ?? 0} | ${c.per_message[k] ?? 0} | ${c.amortized[k] ?? 0} | ${min ? round(min.per_round + min.per_message / AMORTIZED_OVER, 2) : "?"} |`;
  });
  return [
    "| object kind | per round | per message | per round, amortized | minimum, amortized |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
    `| all | ${c.total.per_round} | ${c.total.per_message} | ${c.total.amortized} | ${round(minimumAmortized(), 2)} |`,
  ].join("\n");
}

/** Commits by what they wrote ("Kind: tables"), per round and per message, from a 1-round and a LONG-round message. */
export function commitsByWhat(
  [one, many]: [{ cost: { by_commit: Record<string, number> } }, { cost: { by_commit: Record<string, number> } }],
  long: number,
): { per_round: Record<string, number>; per_message: Record<string, number> } {
  const keys = [...new Set([...Object.keys(one.cost.by_commit), ...Object.keys(many.cost.by_commit)])].sort();
  const out = { per_round: {} as Record<string, number>, per_message: {} as Record<string, number> };
  for (const k of keys) {
    const r = ((many.cost.by_commit[k] ?? 0) - (one.cost.by_commit[k] ?? 0)) / (long - 1);
    const m = (one.cost.by_commit[k] ?? 0) - r;
    if (round(r, 2) !== 0) out.per_round[k] = round(r, 2);
    if (round(m, 2) !== 0) out.per_message[k] = round(m, 2);
  }
  return out;
}
