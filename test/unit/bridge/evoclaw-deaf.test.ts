import { silentLogger } from "@edgeloop/edge-client/log";
import { type DeviceFrame, type HubFrame, UNREACHABLE_CLOSE_CODE } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { DeviceLink, type HubFactory } from "../../../bridge/src/device-link.js";
import { DeviceState } from "../../../bridge/src/device-state.js";
import { EVOCLAW_MAX_PACKET_BYTES, EVOCLAW_MAX_READ_BYTES } from "../../../bridge/src/evoclaw-limits.js";
import { PROBE_ANSWER_MS, PROBE_EVERY_MS } from "../../../bridge/src/evoclaw-probe.js";
import { newStats } from "../../../bridge/src/stats.js";

/** docs/mqtt.md#evoclaw-agents-that-went-deaf: an EvoClaw agent behind the bridge, as the real one behaves. */

const envelope = (payload: unknown, report_type = "result") =>
  JSON.stringify({ agent_id: "evo-1", agent_type: "monitor", report_type, payload, timestamp: 1 });
const TOOLS = envelope({
  tools: [
    {
      name: "gpio_read",
      description: "Read",
      parameters: { type: "object", properties: { pin: { type: "integer" } } },
    },
    {
      name: "read_file",
      description: "Read contents of a file (limited to safe paths)",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, max_bytes: { type: "integer" } },
        required: ["path"],
      },
    },
  ],
  count: 2,
});
const HEARTBEAT = envelope({ uptime_secs: 1 }, "heartbeat");
const PONG = envelope({ pong: true });

/** An EvoClaw agent the bridge serves: tools_list answered, its hub socket open. */
function served() {
  let now = 1_000_000;
  const published: { topic: string; payload: string }[] = [];
  const sent: DeviceFrame[] = [];
  const hubs: { closed: { code?: number; reason?: string } | null }[] = [];
  const openHub: HubFactory = (o) => {
    const h: { closed: { code?: number; reason?: string } | null } = { closed: null };
    hubs.push(h);
    return {
      start: () => o.onOpen(),
      send: (f) => sent.push(f) > 0,
      close: async (code?: number, reason?: string) => {
        h.closed = { code, reason };
      },
      isOpen: true,
    };
  };
  const link = new DeviceLink("evo-1", "tok", DeviceState.open(null, "evo-1"), {
    log: silentLogger,
    publish: (topic, payload) => published.push({ topic, payload }),
    stats: newStats(),
    openHub,
    staleMs: 120_000,
    now: () => now,
  });
  link.holdToolsListFor(0);
  link.onReport(HEARTBEAT);
  link.onReport(TOOLS);
  expect(hubs).toHaveLength(1);
  now += 1_000;
  const pings = () => published.map((p) => JSON.parse(p.payload)).filter((c) => c.command === "ping");
  const hub = () => hubs[hubs.length - 1]!;
  // The hub's frames reach the link as they do from its socket.
  const fromHub = (f: HubFrame) => (link as unknown as { onHubFrame: (f: HubFrame) => void }).onHubFrame(f);
  return { link, published, sent, hubs, pings, hub, fromHub, advance: (ms: number) => (now += ms) };
}

describe("an EvoClaw agent that went deaf", () => {
  it("after a broker reconnect it is pinged in its own command shape; no answer closes its hub socket with the reason", () => {
    const t = served();
    t.link.brokerReconnected();
    t.link.tick();
    expect(t.pings()).toEqual([{ command: "ping", payload: {}, request_id: expect.stringMatching(/^ping-/) }]);
    expect(t.published.at(-1)!.topic).toBe("evoclaw/agents/evo-1/commands");
    // Heartbeats keep coming (the real agent keeps publishing), but they are not an answer.
    t.advance(PROBE_ANSWER_MS);
    t.link.onReport(HEARTBEAT);
    expect(t.hub().closed).toBeNull();
    t.advance(1);
    t.link.onReport(HEARTBEAT);
    expect(t.hub().closed).toEqual({
      code: UNREACHABLE_CLOSE_CODE,
      reason: expect.stringContaining("restart the agent"),
    });
    expect(Buffer.byteLength(t.hub().closed!.reason!)).toBeLessThanOrEqual(123); // a WebSocket close reason's limit
    t.link.tick();
    expect(t.hubs).toHaveLength(1); // heard from, but not served
  });

  it("answers again (a pong after a restart): served again", () => {
    const t = served();
    t.link.brokerReconnected();
    t.link.tick();
    t.advance(PROBE_ANSWER_MS + 1);
    t.link.tick();
    expect(t.hub().closed?.code).toBe(UNREACHABLE_CLOSE_CODE);
    // It restarted: it publishes its capabilities live, is pinged, and answers.
    t.link.onCapabilities(JSON.stringify({ agent_id: "evo-1", capabilities: "evo-1 sensor node" }), false);
    expect(t.pings()).toHaveLength(2);
    t.link.onReport(PONG);
    expect(t.hubs).toHaveLength(2);
    expect(t.hub().closed).toBeNull();
  });

  it("a quiet agent is pinged every interval, and one that answers stays served", () => {
    const t = served();
    // Its heartbeats every 30 s keep it heard from; they are no answer.
    const quietFor = (ms: number) => {
      for (let left = ms; left > 0; left -= Math.min(30_000, left)) {
        t.advance(Math.min(30_000, left));
        t.link.onReport(HEARTBEAT);
      }
    };
    quietFor(PROBE_EVERY_MS - 1_001);
    expect(t.pings()).toHaveLength(0);
    quietFor(1);
    expect(t.pings()).toHaveLength(1);
    t.advance(1_000);
    t.link.onReport(PONG);
    quietFor(PROBE_ANSWER_MS * 2);
    expect(t.hub().closed).toBeNull();
    expect(t.pings()).toHaveLength(1);
  });

  it("a ping waits behind the command the agent is running (it runs one at a time)", () => {
    const t = served();
    t.link.brokerReconnected();
    // A 30 s command was taken just before: the pong may come only after it.
    t.fromHub({
      type: "command",
      command: "tool",
      request_id: "r-1",
      payload: { tool: "gpio_read", parameters: { pin: 17 }, timeout_ms: 30_000, request_id: "r-1" },
    });
    t.link.tick();
    expect(t.pings()).toHaveLength(1);
    t.advance(PROBE_ANSWER_MS + 1);
    t.link.tick();
    expect(t.hub().closed).toBeNull();
    t.advance(30_000);
    t.link.tick();
    expect(t.hub().closed?.code).toBe(UNREACHABLE_CLOSE_CODE);
  });

  it("keeps read_file's max_bytes under what its report can carry, and sends no command over 10 KiB", () => {
    const t = served();
    const tool = (request_id: string, parameters: Record<string, unknown>): HubFrame => ({
      type: "command",
      command: "tool",
      request_id,
      payload: { tool: "read_file", parameters, timeout_ms: 10_000, request_id },
    });
    t.fromHub(tool("r-big", { path: "/tmp/big.txt", max_bytes: 20_000 }));
    t.fromHub(tool("r-small", { path: "/tmp/small.txt", max_bytes: 100 }));
    const sentTools = t.published.map((p) => JSON.parse(p.payload)).filter((c) => c.command === "tool");
    expect(sentTools.map((c) => c.payload.parameters)).toEqual([
      { path: "/tmp/big.txt", max_bytes: EVOCLAW_MAX_READ_BYTES },
      { path: "/tmp/small.txt", max_bytes: 100 },
    ]);
    t.fromHub(tool("r-huge", { path: `/tmp/${"x".repeat(EVOCLAW_MAX_PACKET_BYTES)}` }));
    expect(t.published.map((p) => JSON.parse(p.payload).request_id)).not.toContain("r-huge");
    expect(t.sent.at(-1)).toMatchObject({
      type: "result",
      request_id: "r-huge",
      status: "error",
      error_type: "invalid_params",
      error: expect.stringContaining(`at most ${EVOCLAW_MAX_PACKET_BYTES} bytes`),
    });
  });
});
