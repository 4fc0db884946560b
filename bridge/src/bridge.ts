import { join } from "node:path";
import { HubConnection } from "@edgeloop/edge-client/hub-connection";
import type { Logger } from "@edgeloop/edge-client/log";
import { brokerOptions, redactUrl } from "@edgeloop/edge-client/mqtt-options";
import { bridgeStatusTopic, parseAgentTopic } from "@edgeloop/protocol/mqtt-payloads";
import { connect, type MqttClient } from "mqtt";
import type { BridgeConfig } from "./config.js";
import { DeviceLink, type HubFactory, type Publish } from "./device-link.js";
import { BridgePairing } from "./device-pairing.js";
import { DeviceState } from "./device-state.js";
import { type BridgeStats, newStats } from "./stats.js";

const SUBSCRIPTIONS = ["evoclaw/agents/+/reports", "evoclaw/agents/+/status", "evoclaw/agents/+/capabilities"];
/** Retained capabilities arrive right after subscribing; wait this long before asking tools_list. */
const SETTLE_MS = 2_000;
const TICK_MS = 1_000;
const STATS_EVERY_MS = 60_000;
/** Devices not yet paired whose last messages are kept (anyone on the broker can make up ids). */
const MAX_WAITING_HEARD = 1_000;

export type RunningBridge = { stats: BridgeStats; links: ReadonlyMap<string, DeviceLink>; stop: () => Promise<void> };

/**
 * The broker side: one MQTT client (persistent session, so reports published while the bridge
 * is down wait for it), the bridge's retained status with a last-will, and one DeviceLink per
 * device served — configured ones at start, discovered ones when their retained status or
 * capabilities show up and a token is configured for them.
 */
export function startBridge(config: BridgeConfig, log: Logger, openHub?: HubFactory): RunningBridge {
  const stats = newStats();
  const links = new Map<string, DeviceLink>();
  const skipped = new Set<string>();
  const pairing = config.pairDevices
    ? new BridgePairing({ url: config.url, stateDir: config.stateDir, bridgeId: config.bridgeId, log })
    : null;
  // Devices paired earlier, then the configured ones (a configured token wins).
  const tokens = new Map([...(pairing?.paired() ?? []), ...config.devices]);
  /** What devices waiting for approval last published, handed to their link once they are paired. */
  const heardWhileWaiting = new Map<string, { status?: string; capabilities?: [string, boolean] }>();
  const statusTopic = bridgeStatusTopic(config.bridgeId);
  const options = brokerOptions(config.broker, {
    clientId: `edgeloop-bridge-${config.bridgeId}`.slice(0, 128),
    clean: false,
    reconnectPeriod: 1_000,
    connectTimeout: 15_000,
    will: { topic: statusTopic, payload: Buffer.from("offline"), qos: 1, retain: true },
  });
  if (!options.ok) throw new Error(options.error);

  const hubFactory: HubFactory =
    openHub ??
    ((o) =>
      new HubConnection({
        url: config.url,
        agentId: o.agentId,
        token: o.token,
        heartbeatMs: config.heartbeatMs,
        reconnectMinMs: 500,
        reconnectMaxMs: 30_000,
        log: childLog(log, o.agentId),
        hello: o.hello,
        onOpen: o.onOpen,
        onFrame: o.onFrame,
      }));

  const client: MqttClient = connect(config.broker.url, options.value);
  const publish: Publish = (topic, payload, opts, onAcked) => {
    // QoS 1 while disconnected is queued by mqtt.js and sent after reconnect; the callback comes
    // with the broker's PUBACK.
    client.publish(topic, payload, opts, (err) => {
      if (err) log.warn("publish failed", { topic, error: err.message });
      onAcked?.(err ?? undefined);
    });
  };

  const linkFor = (agentId: string, discovered: boolean): DeviceLink | null => {
    const existing = links.get(agentId);
    if (existing) return existing;
    const token = tokens.get(agentId);
    if (!token && discovered && pairing) {
      pairing.request(agentId, (paired) => {
        tokens.set(agentId, paired);
        const link = linkFor(agentId, true);
        const heard = heardWhileWaiting.get(agentId);
        heardWhileWaiting.delete(agentId);
        if (heard?.status) link?.onStatus(heard.status);
        if (heard?.capabilities) link?.onCapabilities(...heard.capabilities);
      });
      return null;
    }
    if (!token) {
      // Never connect with someone else's token: a device needs its own, configured.
      if (discovered && !skipped.has(agentId)) {
        skipped.add(agentId);
        stats.skippedDevices++;
        log.warn("discovered device has no configured token; skipped", {
          agent_id: agentId,
          hint: `add --device ${agentId}:<token>`,
        });
      }
      return null;
    }
    const state = DeviceState.open(join(config.stateDir, "devices"), agentId, (msg) =>
      log.warn(msg, { agent_id: agentId }),
    );
    const link = new DeviceLink(agentId, token, state, {
      log,
      publish,
      stats,
      openHub: hubFactory,
      staleMs: config.staleMs,
    });
    link.holdToolsListFor(SETTLE_MS);
    links.set(agentId, link);
    if (discovered) log.info("device discovered", { agent_id: agentId });
    return link;
  };
  for (const id of tokens.keys()) linkFor(id, false);

  client.on("connect", (connack) => {
    log.info("connected to broker", { broker: redactUrl(config.broker.url), session_present: connack.sessionPresent });
    publish(statusTopic, "online", { qos: 1, retain: true });
    for (const link of links.values()) {
      link.holdToolsListFor(SETTLE_MS);
      // The broker lost our session: reports for us may be gone. Our agents answer a re-sent command from their store.
      if (!connack.sessionPresent) link.markResendNeeded();
      link.brokerReconnected();
    }
    client.subscribe(
      SUBSCRIPTIONS.map((t) => t),
      { qos: 1 },
      (err) => {
        if (err) log.error("subscribe failed", { error: err.message });
      },
    );
  });
  client.on("message", (topic, payload, packet) => {
    const parsed = parseAgentTopic(topic);
    if (!parsed || parsed.kind === "commands") return;
    const text = payload.toString();
    if (parsed.kind === "reports") {
      links.get(parsed.agentId)?.onReport(text);
      return;
    }
    if (text === "") return; // a cleared retained message
    const link = linkFor(parsed.agentId, true);
    if (!link) {
      if (pairing && (heardWhileWaiting.has(parsed.agentId) || heardWhileWaiting.size < MAX_WAITING_HEARD)) {
        const heard = heardWhileWaiting.get(parsed.agentId) ?? {};
        if (parsed.kind === "status") heard.status = text;
        else heard.capabilities = [text, packet.retain];
        heardWhileWaiting.set(parsed.agentId, heard);
      }
      return;
    }
    if (parsed.kind === "status") link.onStatus(text);
    else link.onCapabilities(text, packet.retain);
  });
  client.on("offline", () =>
    log.warn("broker connection lost; reconnecting", { broker: redactUrl(config.broker.url) }),
  );
  client.on("error", (err) => log.warn("broker error", { error: err.message }));

  const ticker = setInterval(() => {
    for (const link of links.values()) link.tick();
  }, TICK_MS);
  const statsTimer = setInterval(() => log.info("stats", { ...stats, devices: links.size }), STATS_EVERY_MS);

  const stop = async () => {
    pairing?.stop();
    clearInterval(ticker);
    clearInterval(statsTimer);
    await Promise.all([...links.values()].map((l) => l.close()));
    if (client.connected) {
      await Promise.race([
        client.publishAsync(statusTopic, "offline", { qos: 1, retain: true }).catch(() => undefined),
        new Promise((r) => setTimeout(r, 2_000)),
      ]);
    }
    await client.endAsync(true).catch(() => undefined);
    log.info("stats", { ...stats, devices: links.size });
  };
  return { stats, links, stop };
}

function childLog(log: Logger, agentId: string): Logger {
  return {
    debug: (m, f) => log.debug(m, { agent_id: agentId, ...f }),
    info: (m, f) => log.info(m, { agent_id: agentId, ...f }),
    warn: (m, f) => log.warn(m, { agent_id: agentId, ...f }),
    error: (m, f) => log.error(m, { agent_id: agentId, ...f }),
  };
}
