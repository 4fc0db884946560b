import type { HubConnection } from "@edgeloop/edge-client/hub-connection";
import type { Logger } from "@edgeloop/edge-client/log";
import {
  type HelloFrame,
  type HubFrame,
  parseJson,
  type ToolCommandFrame,
  UNREACHABLE_CLOSE_CODE,
} from "@edgeloop/protocol";
import {
  agentTopics,
  CapabilitiesManifest,
  controlCommand,
  EvoClawCapabilities,
  interpretReport,
  type MqttToolCommand,
  parseStatus,
  type ReportOutcome,
} from "@edgeloop/protocol/mqtt-payloads";
import { type DeviceState, OUTSTANDING_GRACE_MS } from "./device-state.js";
import { fitForEvoClaw } from "./evoclaw-limits.js";
import { EvoClawProbe } from "./evoclaw-probe.js";
import { manifestFromToolsList } from "./manifest.js";
import { matchReport } from "./report-match.js";
import type { BridgeStats } from "./stats.js";

/** `onAcked`: the broker acknowledged the publish (QoS 1 PUBACK), or it failed with an error. */
export type Publish = (
  topic: string,
  payload: string,
  opts: { qos: 0 | 1; retain?: boolean },
  onAcked?: (err?: Error) => void,
) => void;

/** The hub side, as a link needs it; tests pass a fake instead of a real WebSocket. */
export type HubSide = {
  send: HubConnection["send"];
  /** a code and reason when the bridge closes it because the device is unreachable */
  close: (code?: number, reason?: string) => Promise<void>;
  start: () => void;
  readonly isOpen: boolean;
};
export type HubFactory = (opts: {
  agentId: string;
  token: string;
  hello: () => HelloFrame;
  onOpen: () => void;
  onFrame: (f: HubFrame) => void;
}) => HubSide;

export type LinkDeps = {
  log: Logger;
  publish: Publish;
  stats: BridgeStats;
  openHub: HubFactory;
  staleMs: number;
  now?: () => number;
};

/** How often an EvoClaw agent that has not answered `tools_list` is asked again. */
const TOOLS_LIST_EVERY_MS = 30_000;

/**
 * One device as the bridge serves it: its presence on the broker, its manifest, the commands
 * in flight and the results not yet acked (DeviceState, on disk), and — while the device is
 * online and its manifest known — a WebSocket to the hub on its behalf.
 */
export class DeviceLink {
  private manifest: HelloFrame | null = null;
  /** "capabilities": our agent (it dedupes by request id, so commands may be re-sent to it) */
  private source: "capabilities" | "tools_list" | null = null;
  private lastSeen = 0;
  /** it has advertised capabilities (perhaps long ago: a retained message): worth asking tools_list */
  private announced = false;
  private hub: HubSide | null = null;
  private lastToolsList = 0;
  private resendWhenKnown = false;
  /** an EvoClaw agent: does it still hear its commands (evoclaw-probe.ts) */
  private readonly probe = new EvoClawProbe();
  private readonly topics;
  private readonly now: () => number;

  constructor(
    readonly agentId: string,
    private readonly token: string,
    private readonly state: DeviceState,
    private readonly deps: LinkDeps,
  ) {
    this.topics = agentTopics(agentId);
    this.now = deps.now ?? Date.now;
  }

  get online(): boolean {
    return this.lastSeen > 0 && this.now() - this.lastSeen <= this.deps.staleMs;
  }

  get hubOpen(): boolean {
    return this.hub !== null;
  }

  // ---- from the broker -------------------------------------------------------------------

  onStatus(payload: string): void {
    const status = parseStatus(payload);
    if (status === null) {
      this.bad("status", `not online/offline: ${payload.slice(0, 80)}`);
      return;
    }
    if (status === "offline") {
      this.lastSeen = 0;
      this.deps.log.info("device offline (status)", { agent_id: this.agentId });
    } else {
      this.seen();
      // Our agent says "online" after (re)subscribing, e.g. after a broker restart lost what was
      // queued for it: ask again for what is still open; it answers repeats from its store.
      this.resendOutstanding("device came online");
    }
    this.tick();
  }

  /**
   * `retained`: the broker's stored copy, perhaps from an agent long gone (EvoClaw's sets no
   * last-will); a live one was just published, so the device is there now.
   */
  onCapabilities(payload: string, retained = true): void {
    this.announced = true;
    const parsed = parseJson(CapabilitiesManifest, payload);
    // EvoClaw agents advertise a one-line summary: it tells us the device exists, not its tools.
    if (!parsed.ok) {
      const evo = parseJson(EvoClawCapabilities, payload);
      this.deps.log[evo.ok ? "info" : "debug"]("capabilities not in our manifest shape; will ask tools_list", {
        agent_id: this.agentId,
        ...(evo.ok ? { capabilities: evo.value.capabilities.slice(0, 200) } : { error: parsed.error.slice(0, 200) }),
      });
      if (!retained) {
        this.seen();
        // Published live: the agent (re)started and subscribed; see whether it hears us.
        this.probe.checkAfter(this.now());
      }
      this.tick();
      return;
    }
    if (parsed.value.agent_id !== this.agentId) {
      this.bad("capabilities", `agent_id '${parsed.value.agent_id}' on ${this.agentId}'s topic`);
      return;
    }
    if (!retained) this.seen();
    const first = this.source !== "capabilities";
    this.setManifest(parsed.value, "capabilities");
    if (first && this.resendWhenKnown && this.online) this.resendOutstanding("manifest arrived");
    this.tick();
  }

  onReport(payload: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(payload);
    } catch {
      this.bad("report", "malformed JSON");
      return;
    }
    const report = interpretReport(raw);
    if (report.kind === "invalid") {
      this.bad("report", report.error);
      return;
    }
    this.seen();
    // An answer (not a heartbeat): the agent hears its commands.
    if (report.kind === "pong" || report.kind === "tools" || report.kind === "tool") {
      if (this.probe.answered(this.now()))
        this.deps.log.info("EvoClaw agent answers again", { agent_id: this.agentId });
    }
    if (report.kind === "tools") {
      const built = manifestFromToolsList(this.agentId, report.answer);
      for (const d of built.dropped)
        this.deps.log.warn("EvoClaw tool not served", { agent_id: this.agentId, tool: d.tool, reason: d.reason });
      // A manifest from our own agent is richer; never replace it with a tools_list answer.
      if (this.source !== "capabilities") this.setManifest(built.hello, "tools_list");
    } else if (report.kind === "tool") {
      this.onToolReport(report.requestId, report.tool, report.outcome, report.shape);
    }
    this.tick();
  }

  // ---- from the hub ----------------------------------------------------------------------

  private onHubFrame(frame: HubFrame): void {
    if (frame.type === "ack") {
      this.persist(() => this.state.ack(frame.request_ids));
    } else if (frame.type === "command" && frame.command === "tool") {
      this.forward(frame);
    } else if (frame.type === "command" && frame.command === "cancel") {
      if (this.source !== "capabilities") {
        // EvoClaw's agent has no cancel: it would report "unknown command" for the call's id. It runs
        // one command at a time, so the call's own report comes first; the hub has ended the call.
        this.deps.log.info("cancel not forwarded: EvoClaw agents have no cancel command", {
          agent_id: this.agentId,
          request_id: frame.request_id,
        });
        return;
      }
      this.deps.publish(this.topics.commands, JSON.stringify(controlCommand("cancel", frame.request_id)), { qos: 1 });
    }
  }

  /** EvoClaw's command, exactly: `{"command":"tool","payload":{…},"request_id"}` without our `type`. */
  private forward(frame: ToolCommandFrame): void {
    const sent: MqttToolCommand = { command: "tool", payload: frame.payload, request_id: frame.request_id };
    const fitted = this.source === "capabilities" ? null : fitForEvoClaw(sent, this.topics.commands);
    if (fitted && !fitted.ok) {
      this.deps.log.warn("command too large for an EvoClaw agent; not sent", { request_id: frame.request_id });
      this.hub?.send(fitted.refusal);
      return;
    }
    if (fitted?.capped)
      this.deps.log.info("max_bytes lowered to fit the agent's reports", { request_id: sent.request_id });
    const command = fitted?.command ?? sent;
    const now = this.now();
    // A repeat of an open command is published again (our agent dedupes) but kept once.
    const saved = this.persist(() => {
      this.state.addOutstanding({
        request_id: frame.request_id,
        tool: frame.payload.tool,
        sent_at: now,
        expires_at: now + frame.payload.timeout_ms + OUTSTANDING_GRACE_MS,
        command,
      });
      return true;
    });
    if (!saved) return; // not on disk, so not sent: the hub re-sends it on the next hello
    this.deps.stats.commandsForwarded++;
    this.deps.log.info("command forwarded", {
      agent_id: this.agentId,
      request_id: frame.request_id,
      tool: frame.payload.tool,
    });
    // The broker's PUBACK is the strongest sign an EvoClaw agent gives that a command left us
    // (it sends nothing when it takes one): the hub then knows the call may have run.
    this.deps.publish(this.topics.commands, JSON.stringify(command), { qos: 1 }, (err) => {
      if (!err && this.hub?.isOpen) this.hub.send({ type: "accepted", request_id: frame.request_id, by: "broker" });
    });
  }

  private onToolReport(
    requestId: string | undefined,
    tool: string | undefined,
    outcome: ReportOutcome,
    shape: string,
  ): void {
    const matched = matchReport(this.agentId, this.state, this.deps, requestId, tool, outcome);
    if (!matched) return;
    const { cmd, result } = matched;
    const saved = this.persist(() => {
      this.state.complete(result, this.now());
      return true;
    });
    if (!saved) return;
    this.deps.stats.reports++;
    this.deps.log.info("report", {
      agent_id: this.agentId,
      request_id: cmd.request_id,
      tool: cmd.tool,
      status: result.status,
      shape,
    });
    this.hub?.send(result);
  }

  // ---- presence and the hub socket -------------------------------------------------------

  /** Called on every event and on a timer: opens/closes the hub socket, asks tools_list, expires. */
  tick(): void {
    for (const { request_id, tool } of this.persist(() => this.state.expire(this.now())) || [])
      this.deps.log.warn("command expired unanswered", { agent_id: this.agentId, request_id, tool });
    const online = this.online;
    if (online && this.source === "tools_list") this.probeStep();
    // A deaf EvoClaw agent is offline at the hub, with the reason, until it answers again.
    const serve = online && this.probe.deaf === null;
    if (serve && this.manifest && !this.hub) this.openHub();
    if (!serve && this.hub) {
      this.deps.log.info("device stale, offline or deaf: closing its hub socket", { agent_id: this.agentId });
      void this.closeHub(this.probe.deaf ?? undefined);
    }
    // Asked also of a device only known from retained capabilities: an EvoClaw agent that is up
    // answers at once, rather than at its next heartbeat (every 30 s).
    const ask = (online || this.announced) && this.source === null;
    if (ask && this.now() - this.lastToolsList >= TOOLS_LIST_EVERY_MS) {
      this.lastToolsList = this.now();
      this.deps.publish(this.topics.commands, JSON.stringify(controlCommand("tools_list", `tools-${this.now()}`)), {
        qos: 1,
      });
    }
  }

  /** The bridge's broker connection came back: an EvoClaw agent's subscription may not have. */
  brokerReconnected(): void {
    this.probe.checkAfter(this.now());
  }

  private probeStep(): void {
    const now = this.now();
    // The agent runs one command at a time: a pong comes after what it is running.
    const busyUntil = Math.max(0, ...this.state.outstanding().map((o) => o.sent_at + o.command.payload.timeout_ms));
    const step = this.probe.step(now, busyUntil);
    if (step === "ping")
      this.deps.publish(this.topics.commands, JSON.stringify(controlCommand("ping", `ping-${now}`)), { qos: 1 });
    const reason = this.probe.deaf;
    if (step === "deaf")
      this.deps.log.warn("EvoClaw agent deaf: offline until it answers", { agent_id: this.agentId, reason });
  }

  /** Lets the retained capabilities arrive first, so our own agents are never sent tools_list. */
  holdToolsListFor(ms: number): void {
    this.lastToolsList = this.now() - TOOLS_LIST_EVERY_MS + ms;
  }

  /** After the broker lost our session, or at start: re-send open commands once we know it is safe. */
  markResendNeeded(): void {
    this.resendWhenKnown = true;
  }

  async close(): Promise<void> {
    await this.closeHub();
  }

  private openHub(): void {
    this.deps.log.info("device online: opening its hub socket", { agent_id: this.agentId, source: this.source });
    const hub = this.deps.openHub({
      agentId: this.agentId,
      token: this.token,
      hello: () => ({ ...this.manifest!, held: this.state.held() }),
      onOpen: () => {
        for (const r of this.state.unacked()) hub.send(r);
      },
      onFrame: (f) => this.onHubFrame(f),
    });
    this.hub = hub;
    hub.start();
  }

  private async closeHub(unreachable?: string): Promise<void> {
    const hub = this.hub;
    this.hub = null;
    await (unreachable ? hub?.close(UNREACHABLE_CLOSE_CODE, unreachable) : hub?.close());
  }

  private setManifest(hello: HelloFrame, source: "capabilities" | "tools_list"): void {
    const changed = JSON.stringify(this.manifest) !== JSON.stringify(hello);
    this.manifest = { ...hello, held: [] };
    this.source = source;
    if (changed) {
      this.deps.log.info("device manifest", {
        agent_id: this.agentId,
        source,
        tools: hello.skills.flatMap((s) => s.tools.map((t) => t.name)),
      });
      // An open socket learns the new manifest by a fresh hello (the hub accepts a repeat).
      if (this.hub?.isOpen) this.hub.send({ ...this.manifest, held: this.state.held() });
    }
  }

  private resendOutstanding(why: string): void {
    const open = this.state.outstanding();
    if (open.length === 0) return;
    // Only our agent dedupes by request id; an EvoClaw agent might run the tool twice.
    if (this.source !== "capabilities") {
      this.resendWhenKnown = true;
      return;
    }
    this.resendWhenKnown = false;
    this.deps.log.info("re-sending open commands", {
      agent_id: this.agentId,
      why,
      request_ids: open.map((o) => o.request_id),
    });
    for (const o of open) this.deps.publish(this.topics.commands, JSON.stringify(o.command), { qos: 1 });
  }

  private seen(): void {
    this.lastSeen = this.now();
  }

  private bad(what: string, error: string): void {
    this.deps.stats.badPayloads++;
    this.deps.log.warn(`bad ${what} payload ignored`, { agent_id: this.agentId, error });
  }

  /** State writes can fail (disk full): log it and tell the caller, never throw into MQTT's loop. */
  private persist<T>(fn: () => T): T | false {
    try {
      return fn();
    } catch (e) {
      this.deps.log.error("bridge state not saved", { agent_id: this.agentId, error: (e as Error).message });
      return false;
    }
  }
}
