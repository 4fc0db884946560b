import type { Logger } from "@edgeloop/edge-client/log";
import { brokerOptions, redactUrl } from "@edgeloop/edge-client/mqtt-options";
import type { DeviceFrame, HelloFrame, HubFrame } from "@edgeloop/protocol/device-frames";
import { agentTopics, MqttCommand, unixSeconds } from "@edgeloop/protocol/mqtt-payloads";
import { parseJson } from "@edgeloop/protocol/parse";
import { connect, type MqttClient } from "mqtt";
import type { BrokerConfig } from "./config.js";

export type MqttTransportOptions = {
  broker: BrokerConfig;
  agentId: string;
  log: Logger;
  /** our manifest; published retained on `…/capabilities` so the bridge needs no tools_list */
  hello: () => HelloFrame;
  /** after (re)connecting: re-send the results nobody has taken yet */
  onOpen: () => void;
  /** commands as the dispatcher knows them; a broker PUBACK of a result comes back as an `ack` */
  onFrame: (frame: HubFrame) => void;
  heartbeatMs?: number;
  reconnectMs?: number;
};

export type MqttTransportStats = { connects: number; badFrames: number };

/** EvoClaw's heartbeat period; the bridge calls a device stale after 2 minutes without one. */
export const MQTT_HEARTBEAT_MS = 30_000;

/**
 * The agent's link to a broker instead of the hub (the EvoClaw topics): commands in on
 * `…/commands`, flat reports (+ `request_id`) out on `…/reports`, retained `…/capabilities`
 * and `…/status` with a last-will. Same surface as HubConnection, so agent.ts picks either.
 *
 * Exactly-once stays with the dispatcher: a QoS 1 command delivered twice is just a repeated
 * request id. A result counts as delivered (acked) once the broker has it (PUBACK): the bridge
 * holds a persistent session, and a lost one is asked for again by a re-sent command.
 */
export class MqttTransport {
  readonly stats: MqttTransportStats = { connects: 0, badFrames: 0 };
  private client: MqttClient | null = null;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly topics;
  private readonly startedAt = Date.now();

  constructor(private readonly opts: MqttTransportOptions) {
    this.topics = agentTopics(opts.agentId);
  }

  get isOpen(): boolean {
    return this.client?.connected === true;
  }

  start(): void {
    const options = brokerOptions(this.opts.broker, {
      clientId: `edgeloop-agent-${this.opts.agentId}`,
      // A persistent session: commands published while we are away wait at the broker.
      clean: false,
      reconnectPeriod: this.opts.reconnectMs ?? 1_000,
      connectTimeout: 15_000,
      will: { topic: this.topics.status, payload: Buffer.from("offline"), qos: 1, retain: true },
    });
    if (!options.ok) throw new Error(options.error);
    const client = connect(this.opts.broker.url, options.value);
    this.client = client;
    client.on("connect", () => void this.onConnect(client));
    client.on("message", (topic, payload) => {
      if (topic === this.topics.commands) this.onCommand(payload.toString());
    });
    client.on("close", () => this.stopHeartbeat());
    client.on("offline", () =>
      this.opts.log.warn("broker connection lost; reconnecting", { broker: redactUrl(this.opts.broker.url) }),
    );
    client.on("error", (err) => this.opts.log.warn("broker error", { error: err.message }));
  }

  /** Publishes if connected; false if not (results stay in the store and go out after reconnect). */
  send(frame: DeviceFrame): boolean {
    const client = this.client;
    if (!client?.connected) return false;
    // A manifest update is the same retained message again: `hello()` builds it from the current tools.
    if (frame.type === "hello" || frame.type === "manifest_update") {
      this.publishCapabilities(client);
      return true;
    }
    // Not part of the MQTT contract: dropped, as offline (the bridge says `accepted` on the PUBACK).
    if (frame.type === "progress" || frame.type === "accepted") return true;
    // Nor are a device MCP server's questions: the agent asks none over MQTT (agent.ts).
    if (frame.type === "elicitation") return false;
    const { type: _type, ...report } = frame;
    client.publish(this.topics.reports, JSON.stringify(report), { qos: 1 }, (err) => {
      if (err) this.opts.log.warn("report not published", { request_id: frame.request_id, error: err.message });
      else this.opts.onFrame({ type: "ack", request_ids: [frame.request_id] });
    });
    return true;
  }

  /** Says "offline" itself (the will is for crashes), then disconnects. */
  async close(): Promise<void> {
    this.stopHeartbeat();
    const client = this.client;
    if (!client) return;
    if (client.connected) {
      await Promise.race([
        client.publishAsync(this.topics.status, "offline", { qos: 1, retain: true }).catch(() => undefined),
        new Promise((r) => setTimeout(r, 2_000)),
      ]);
    }
    await client.endAsync(true).catch(() => undefined);
  }

  private async onConnect(client: MqttClient): Promise<void> {
    this.stats.connects++;
    this.opts.log.info("connected to broker", { broker: redactUrl(this.opts.broker.url) });
    try {
      // Subscribe on every connect: a broker that restarted without persistence forgot us.
      await client.subscribeAsync(this.topics.commands, { qos: 1 });
    } catch (e) {
      this.opts.log.warn("subscribe failed", { error: (e as Error).message });
      return;
    }
    this.publishCapabilities(client);
    // Last, so a bridge that reacts to "online" by re-sending commands finds us subscribed.
    client.publish(this.topics.status, "online", { qos: 1, retain: true });
    this.startHeartbeat(client);
    this.opts.onOpen();
  }

  private publishCapabilities(client: MqttClient): void {
    const { held: _held, ...manifest } = this.opts.hello();
    client.publish(this.topics.capabilities, JSON.stringify(manifest), { qos: 1, retain: true });
  }

  private onCommand(text: string): void {
    const parsed = parseJson(MqttCommand, text);
    if (!parsed.ok) {
      // Someone else's bug on a shared broker: count it, never crash on it.
      this.stats.badFrames++;
      this.opts.log.warn("bad command ignored", { error: parsed.error, payload: text.slice(0, 200) });
      return;
    }
    const cmd = parsed.value;
    if (cmd.command === "tool") this.opts.onFrame({ type: "command", ...cmd });
    else if (cmd.command === "cancel")
      this.opts.onFrame({ type: "command", command: "cancel", request_id: cmd.request_id });
    else if (cmd.command === "ping") this.publishEnvelope("result", { pong: true, request_id: cmd.request_id });
    else {
      const tools = this.opts
        .hello()
        .skills.flatMap((s) =>
          s.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
        );
      this.publishEnvelope("result", { tools, count: tools.length, request_id: cmd.request_id });
    }
  }

  /** The EvoClaw edge agent's report envelope, for what has no flat shape (pong, tools, heartbeat). */
  private publishEnvelope(reportType: "result" | "heartbeat", payload: Record<string, unknown>): void {
    this.client?.publish(
      this.topics.reports,
      JSON.stringify({
        agent_id: this.opts.agentId,
        agent_type: "edgeloop",
        report_type: reportType,
        payload,
        timestamp: unixSeconds(),
      }),
      { qos: 0 },
    );
  }

  private startHeartbeat(client: MqttClient): void {
    this.stopHeartbeat();
    const beat = () => {
      if (client.connected)
        this.publishEnvelope("heartbeat", { uptime_s: Math.round((Date.now() - this.startedAt) / 1000) });
    };
    beat();
    this.heartbeat = setInterval(beat, this.opts.heartbeatMs ?? MQTT_HEARTBEAT_MS);
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}
