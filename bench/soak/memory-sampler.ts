/**
 * RSS of the soak's processes over time, from /proc (Linux): the runtime (every process in the
 * runtime's process group: wrangler's dev server and workerd), the agents (summed, and the largest
 * one), the bridge and the broker. "Flat" compares the first minute of the load with its last.
 */
import { groupRssMb, rssMbOrZero } from "../lib/memory.js";
import type { Check } from "./checks.js";
import type { Fleet } from "./fleet.js";

export type MemorySample = {
  t_s: number;
  runtime_mb: number;
  /** of which workerd (the rest is wrangler's dev server, a Node process) */
  workerd_mb: number;
  agents_mb: number;
  agent_max_mb: number;
  agents_up: number;
  bridge_mb: number;
  broker_mb: number;
};

const round = (n: number) => Math.round(n * 10) / 10;

export class MemorySampler {
  readonly samples: MemorySample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly t0 = Date.now();

  constructor(private readonly fleet: Fleet) {}

  start(everyMs: number): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    const runtimePid = this.fleet.runtime().child.proc.pid;
    const runtime = runtimePid ? groupRssMb(runtimePid) : { all: 0, workerd: 0 };
    const agentRss = this.fleet.agents.flatMap((a) => (a.proc.pid && a.proc.running ? [rssMbOrZero(a.proc.pid)] : []));
    const bridgePid = this.fleet.bridge.pid;
    const brokerPid = this.fleet.broker.pid();
    this.samples.push({
      t_s: Math.round((Date.now() - this.t0) / 1000),
      runtime_mb: round(runtime.all),
      workerd_mb: round(runtime.workerd),
      agents_mb: round(agentRss.reduce((n, x) => n + x, 0)),
      agent_max_mb: round(Math.max(0, ...agentRss)),
      agents_up: agentRss.length,
      bridge_mb: round(bridgePid ? rssMbOrZero(bridgePid) : 0),
      broker_mb: round(brokerPid ? rssMbOrZero(brokerPid) : 0),
    });
  }
}

/**
 * Growth of at most this ratio (last window's mean RSS over the first's) counts as flat. Under chaos
 * a healthy runtime's minute means wander (each lifetime climbs from about 650 MB to its working
 * set, and the runtime is restarted every 40 s or so): the compared windows differed by x1.02-x1.05
 * in full runs, any two minutes by up to x1.29; the agents' mean drifts up by 5-8 % over ten
 * minutes. A quarter is at the edge of that noise, not well clear of it: a coarse check, which
 * catches a leak that keeps adding with the work (the load is steady, so it adds until the last
 * window) once it reaches a quarter of the process's memory within the run. docs/soak.md.
 */
export const MEMORY_FLAT_WITHIN = 1.25;

export type MemoryWindow = {
  from_s: number;
  to_s: number;
  runtime_mb: number;
  agent_avg_mb: number;
  agent_max_mb: number;
};
export type MemoryVerdict = {
  /** false for a load too short to tell growth from warm-up (a quick run): reported, not checked */
  judged: boolean;
  window_s: number;
  first: MemoryWindow;
  last: MemoryWindow;
  runtime_growth: number;
  agent_growth: number;
  /** growth of at most this ratio counts as flat */
  flat_within: number;
  flat: boolean;
};

/**
 * The first `windowS` seconds of the load after its first window (the warm-up: the runtime's
 * first isolates and caches, the agents' first tool runs, which is growth but no leak) against the
 * last `windowS` seconds, as means: the runtime's total RSS, and the agents' RSS per running agent
 * (agents come and go under chaos, so a sum would measure that). Samples taken while the runtime
 * was down or starting (under 10 MB) are left out. Judged only when the load is at least five
 * windows long: in a shorter one the two windows nearly touch, and a restart's timing decides.
 */
export function memoryVerdict(
  samples: MemorySample[],
  loadFromS: number,
  loadToS: number,
  windowS: number,
  flatWithin: number,
): MemoryVerdict {
  const judged = loadToS - loadFromS >= 5 * windowS;
  const firstFrom = judged ? loadFromS + windowS : loadFromS;
  const inLoad = samples.filter((s) => s.t_s >= loadFromS && s.t_s <= loadToS && s.runtime_mb > 10);
  const windowOf = (from: number, to: number): MemoryWindow => {
    const w = inLoad.filter((s) => s.t_s >= from && s.t_s <= to);
    const mean = (f: (s: MemorySample) => number) => round(w.reduce((n, s) => n + f(s), 0) / Math.max(1, w.length));
    return {
      from_s: from,
      to_s: to,
      runtime_mb: mean((s) => s.runtime_mb),
      agent_avg_mb: mean((s) => s.agents_mb / Math.max(1, s.agents_up)),
      agent_max_mb: round(Math.max(0, ...w.map((s) => s.agent_max_mb))),
    };
  };
  const first = windowOf(firstFrom, firstFrom + windowS);
  const last = windowOf(loadToS - windowS, loadToS);
  const growth = (a: number, b: number) => (a > 0 ? Math.round((b / a) * 100) / 100 : 0);
  const runtime_growth = growth(first.runtime_mb, last.runtime_mb);
  const agent_growth = growth(first.agent_avg_mb, last.agent_avg_mb);
  return {
    judged,
    window_s: windowS,
    first,
    last,
    runtime_growth,
    agent_growth,
    flat_within: flatWithin,
    flat: !judged || (runtime_growth <= flatWithin && agent_growth <= flatWithin),
  };
}

/** Memory that was not flat is a failure like the others: one count per kind of process that grew. */
export function memoryCheck(v: MemoryVerdict): Check {
  const grew = !v.judged
    ? []
    : [
        ...(v.runtime_growth > v.flat_within
          ? [`runtime ${v.first.runtime_mb} MB -> ${v.last.runtime_mb} MB (x${v.runtime_growth})`]
          : []),
        ...(v.agent_growth > v.flat_within
          ? [`agent (mean) ${v.first.agent_avg_mb} MB -> ${v.last.agent_avg_mb} MB (x${v.agent_growth})`]
          : []),
      ];
  return {
    id: "memory_growth",
    what: v.judged
      ? `kinds of process (runtime, agents) whose RSS grew more than x${v.flat_within} from the ${v.window_s} s after the warm-up to the last ${v.window_s} s of the load`
      : "memory growth: not judged (the load is shorter than five windows; reported below)",
    bucket: "other",
    count: grew.length,
    examples: grew,
  };
}
