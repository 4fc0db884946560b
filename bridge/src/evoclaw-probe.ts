/**
 * Whether an EvoClaw agent still hears its commands (docs/mqtt.md#evoclaw-agents-that-went-deaf).
 * EvoClaw's agent subscribes once, at start, with a clean session: after its broker restarts, or
 * after a packet over its 10 KiB limit drops its connection, it reconnects and keeps sending
 * heartbeats, but no command reaches it again. Heartbeats prove nothing, so the bridge asks with
 * the agent's own `ping` (it answers `{"pong":true}`, with no request id) after a broker reconnect,
 * after the agent says it (re)started, and at a quiet interval; an agent that does not answer is
 * deaf until it answers again. Only an answer counts: a pong, a tools_list answer, a tool's report.
 * Pure: the link feeds it the time and publishes what it says.
 */

/** How long an agent has to answer a ping once its running commands are done (it runs one at a time). */
export const PROBE_ANSWER_MS = 10_000;
/** How often a quiet agent is asked. */
export const PROBE_EVERY_MS = 5 * 60_000;

const REASONS = {
  reconnect:
    "the EvoClaw agent did not answer ping after the broker reconnected (it does not subscribe again): restart the agent",
  quiet: "the EvoClaw agent did not answer ping (it no longer hears its commands): restart the agent",
} as const;

export type ProbeStep = "ping" | "deaf" | null;

export class EvoClawProbe {
  private lastAnswer = 0;
  private lastSent = 0;
  /** the broker connection came back (or the agent restarted) at this time: ask once after it */
  private checkFrom = 0;
  private pending: { deadline: number; why: keyof typeof REASONS } | null = null;
  /** why the agent is taken to be deaf; null while it answers */
  deaf: string | null = null;

  constructor(private readonly everyMs = PROBE_EVERY_MS) {}

  /** A report only an agent that hears its commands sends. True if it was deaf until now. */
  answered(now: number): boolean {
    this.lastAnswer = now;
    this.pending = null;
    const was = this.deaf !== null;
    this.deaf = null;
    return was;
  }

  /** The bridge's broker connection is back, or the agent published its capabilities live (it started). */
  checkAfter(now: number): void {
    this.checkFrom = now;
  }

  /**
   * What to do now. `busyUntil`: when the commands the agent may still be running reach their
   * timeouts; its pong comes after them.
   */
  step(now: number, busyUntil: number): ProbeStep {
    if (this.pending) {
      if (now <= this.pending.deadline) return null;
      const why = this.pending.why;
      this.pending = null;
      if (this.deaf !== null) return null;
      this.deaf = REASONS[why];
      return "deaf";
    }
    const afterReconnect = this.checkFrom > this.lastAnswer && this.lastSent < this.checkFrom;
    const quiet = busyUntil <= now && now - Math.max(this.lastAnswer, this.lastSent) >= this.everyMs;
    if (!afterReconnect && !quiet) return null;
    this.lastSent = now;
    const why = afterReconnect ? "reconnect" : "quiet";
    this.pending = { deadline: Math.max(now, busyUntil) + PROBE_ANSWER_MS, why };
    return "ping";
  }
}
