/**
 * The chaos driver: at seeded random times it SIGKILLs device agents, the bridge, the broker and
 * the runtime, freezes agents (SIGSTOP, then SIGCONT: a device that hangs with its socket open),
 * and cuts device connections at the proxy (RST while both ends live on) or stalls them (no
 * traffic, no close: a half-open link) before resetting them. Each killed part is
 * started again after a short random pause, on the same state. Faults overlap: the next one does
 * not wait for the last recovery. Every action is logged with its time, for the report and replays.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Fleet, SoakAgent } from "./fleet.js";
import type { Random } from "./random.js";

export const CHAOS_ACTIONS = [
  "kill_agent",
  "freeze_agent",
  "cut_connections",
  "stall_connections",
  "kill_bridge",
  "kill_broker",
  "kill_runtime",
] as const;
export type ChaosAction = (typeof CHAOS_ACTIONS)[number];

const WEIGHTS: Record<ChaosAction, number> = {
  kill_agent: 30,
  freeze_agent: 10,
  cut_connections: 14,
  stall_connections: 8,
  kill_bridge: 12,
  kill_broker: 12,
  kill_runtime: 10,
};

export type ChaosEvent = {
  at_s: number;
  action: ChaosAction;
  target: string;
  /** how long the part was down (killed → started again, or frozen → continued) */
  down_ms?: number;
  detail?: string;
  error?: string;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ChaosDriver {
  readonly events: ChaosEvent[] = [];
  private readonly recoveries = new Set<Promise<void>>();
  private readonly busy = new Set<string>();
  private readonly t0 = Date.now();

  constructor(
    private readonly fleet: Fleet,
    private readonly random: Random,
    private readonly opts: {
      meanGapMs: number;
      /** messages being posted right now: a runtime kill waits (briefly) for one, to hit the front door mid-request */
      postsInFlight: () => number;
    },
  ) {}

  /** Faults while `going()`; then waits for every part to be back up. Every action kind happens at least once. */
  async run(going: () => boolean): Promise<void> {
    const first = this.random.shuffle(CHAOS_ACTIONS.filter((a) => this.possible(a)));
    while (going()) {
      await sleep(this.random.int(Math.round(this.opts.meanGapMs / 2), Math.round((this.opts.meanGapMs * 3) / 2)));
      if (!going()) break;
      const action = first.shift() ?? this.weighted();
      this.act(action);
    }
    while (this.recoveries.size > 0) await Promise.all([...this.recoveries]);
  }

  private possible(a: ChaosAction): boolean {
    const mqtt = this.fleet.agents.some((x) => x.transport === "mqtt");
    return mqtt || (a !== "kill_bridge" && a !== "kill_broker");
  }

  private weighted(): ChaosAction {
    const options = CHAOS_ACTIONS.filter((a) => this.possible(a));
    let r = this.random.next() * options.reduce((n, a) => n + WEIGHTS[a], 0);
    for (const a of options) {
      r -= WEIGHTS[a];
      if (r < 0) return a;
    }
    return options[0]!;
  }

  private act(action: ChaosAction): void {
    const event: ChaosEvent = { at_s: Math.round((Date.now() - this.t0) / 100) / 10, action, target: "" };
    this.events.push(event);
    // Mostly short outages; sometimes longer than a tool's timeout (30 s + the hub's 3 s grace).
    const single = { kill_bridge: "bridge", kill_broker: "broker", kill_runtime: "runtime" } as Record<string, string>;
    const part = single[action];
    if (part && this.busy.has(part)) {
      event.target = part;
      event.detail = "already down";
      return;
    }
    const downMs = this.random.chance(0.12) ? this.random.int(34_000, 45_000) : this.random.int(300, 4_000);
    switch (action) {
      case "kill_agent":
      case "freeze_agent": {
        const agent = this.freeAgent();
        if (!agent) {
          event.detail = "every agent already down";
          return;
        }
        event.target = agent.id;
        if (action === "kill_agent") {
          this.outage(
            event,
            agent.id,
            downMs,
            () => agent.proc.kill(),
            async () => agent.proc.start(),
          );
        } else {
          // 2–20 s: some freezes end before the hub gives up on the socket (3 × 5 s), some after.
          const frozenMs = this.random.int(2_000, 20_000);
          this.outage(
            event,
            agent.id,
            frozenMs,
            async () => agent.proc.freeze(),
            async () => agent.proc.thaw(),
          );
        }
        return;
      }
      case "cut_connections": {
        const share = this.random.pick([0.3, 0.6, 1]);
        event.target = "proxy";
        const live = this.fleet.proxy.live();
        event.detail = `cut ${this.fleet.proxy.cut(share, this.random.next)} of ${live} connections`;
        return;
      }
      case "stall_connections": {
        const share = this.random.pick([0.3, 0.6, 1]);
        const ms = this.random.int(5_000, 25_000);
        event.target = "proxy";
        const live = this.fleet.proxy.live();
        event.detail = `stalled ${this.fleet.proxy.stall(share, this.random.next, ms)} of ${live} connections for ${ms} ms, then reset them`;
        return;
      }
      case "kill_bridge":
        event.target = "bridge";
        this.outage(
          event,
          "bridge",
          downMs,
          () => this.fleet.bridge.kill(),
          async () => this.fleet.bridge.start(),
        );
        return;
      case "kill_broker":
        event.target = "broker";
        this.outage(event, "broker", downMs, this.fleet.broker.kill, this.fleet.broker.start);
        return;
      case "kill_runtime":
        event.target = "runtime";
        this.outage(
          event,
          "runtime",
          downMs,
          async () => {
            const t = Date.now();
            while (this.opts.postsInFlight() === 0 && Date.now() - t < 3_000) await sleep(5);
            event.detail = this.opts.postsInFlight() > 0 ? "with a message being posted" : "no message being posted";
            await this.fleet.killRuntime();
          },
          this.fleet.startRuntime,
        );
        return;
    }
  }

  /** Mostly an agent with a tool running right now (its journal says so): that is where it hurts. */
  private freeAgent(): SoakAgent | null {
    const free = this.fleet.agents.filter((a) => !this.busy.has(a.id));
    if (free.length === 0) return null;
    const working = free.filter((a) => toolsRunning(a.workspace) > 0);
    return this.random.pick(working.length > 0 && this.random.chance(0.7) ? working : free);
  }

  /** Take a part down now, bring it back after `ms` (in the background); the event gets the real downtime. */
  private outage(event: ChaosEvent, key: string, ms: number, down: () => Promise<void>, up: () => Promise<void>): void {
    this.busy.add(key);
    const started = Date.now();
    const p = (async () => {
      try {
        await down();
        await sleep(ms);
        for (let attempt = 1; ; attempt++) {
          try {
            await up();
            break;
          } catch (e) {
            event.error = `start ${attempt} failed: ${(e as Error).message.split("\n")[0]}`;
            if (attempt >= 5) throw e;
          }
        }
      } catch (e) {
        event.error = (e as Error).message.split("\n")[0];
      } finally {
        event.down_ms = Date.now() - started;
        this.busy.delete(key);
      }
    })();
    this.recoveries.add(p);
    void p.finally(() => this.recoveries.delete(p));
  }
}

/** Runs in an agent's tool journal that started and have not ended yet. */
function toolsRunning(workspace: string): number {
  const file = join(workspace, "soak-journal.jsonl");
  if (!existsSync(file)) return 0;
  let open = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith('{"ev":"start"')) open++;
    else if (line.startsWith('{"ev":"end"')) open--;
  }
  return open;
}
