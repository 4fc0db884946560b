import { silentLogger } from "@edgeloop/edge-client/log";
import type { DeviceFrame, HelloFrame, HubFrame } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { DeviceLink, type HubFactory } from "../../../bridge/src/device-link.js";
import { DeviceState } from "../../../bridge/src/device-state.js";
import { newStats } from "../../../bridge/src/stats.js";

const OUR_MANIFEST = {
  type: "hello",
  protocol: 1,
  agent_id: "pi-1",
  version: "0.1.0",
  capabilities: ["shell"],
  skills: [
    {
      name: "s",
      version: "1.0.0",
      tools: [
        {
          name: "bash",
          description: "Run",
          binary: "bin/b",
          category: "exec",
          timeout_ms: 30000,
          max_timeout_ms: 300000,
          parameters: { type: "object", properties: {}, required: [] },
        },
      ],
    },
  ],
  filtered: [],
};

function setup(agentId = "pi-1") {
  let now = 1_000_000;
  const published: { topic: string; payload: string; acked?: (err?: Error) => void }[] = [];
  const sent: DeviceFrame[] = [];
  const hubs: { hello: () => HelloFrame; onFrame: (f: HubFrame) => void; closed: boolean; onOpen: () => void }[] = [];
  const openHub: HubFactory = (o) => {
    const h = { hello: o.hello, onFrame: o.onFrame, onOpen: o.onOpen, closed: false };
    hubs.push(h);
    return {
      start: () => o.onOpen(),
      send: (f) => {
        sent.push(f);
        return true;
      },
      close: async () => {
        h.closed = true;
      },
      isOpen: true,
    };
  };
  const stats = newStats();
  const state = DeviceState.open(null, agentId);
  const link = new DeviceLink(agentId, "tok", state, {
    log: silentLogger,
    publish: (topic, payload, _opts, acked) => published.push({ topic, payload, ...(acked ? { acked } : {}) }),
    stats,
    openHub,
    staleMs: 120_000,
    now: () => now,
  });
  return { link, published, sent, hubs, stats, state, advance: (ms: number) => (now += ms) };
}

const command = (id: string, tool = "bash"): HubFrame => ({
  type: "command",
  command: "tool",
  request_id: id,
  payload: { tool, parameters: { command: "ls" }, timeout_ms: 30000, request_id: id },
});

describe("DeviceLink", () => {
  it("opens the hub socket once an online device's manifest is known, with held ids", () => {
    const t = setup();
    t.link.onCapabilities(JSON.stringify(OUR_MANIFEST));
    expect(t.hubs).toHaveLength(0); // not seen yet
    t.link.onStatus("online");
    expect(t.hubs).toHaveLength(1);
    expect(t.hubs[0]!.hello()).toMatchObject({ type: "hello", agent_id: "pi-1", held: [] });
  });

  it("publishes hub commands in the exact EvoClaw shape, and turns the report into a result frame", () => {
    const t = setup();
    t.link.onCapabilities(JSON.stringify(OUR_MANIFEST));
    t.link.onStatus("online");
    t.hubs[0]!.onFrame(command("req-1"));
    const pub = t.published.find((p) => p.topic === "evoclaw/agents/pi-1/commands")!;
    expect(JSON.parse(pub.payload)).toEqual({
      command: "tool",
      payload: { tool: "bash", parameters: { command: "ls" }, timeout_ms: 30000, request_id: "req-1" },
      request_id: "req-1",
    });
    expect(t.hubs[0]!.hello().held).toEqual(["req-1"]);
    t.link.onReport(
      JSON.stringify({
        status: "success",
        tool: "bash",
        result: "a\n",
        stderr: "",
        exit_code: 0,
        elapsed_ms: 5,
        request_id: "req-1",
      }),
    );
    expect(t.sent).toEqual([
      {
        type: "result",
        request_id: "req-1",
        status: "success",
        tool: "bash",
        result: "a\n",
        stderr: "",
        exit_code: 0,
        elapsed_ms: 5,
      },
    ]);
    // Kept until the hub acks it.
    expect(t.state.unacked()).toHaveLength(1);
    t.hubs[0]!.onFrame({ type: "ack", request_ids: ["req-1"] });
    expect(t.state.unacked()).toHaveLength(0);
  });

  it("tells the hub a command was accepted once the broker acknowledged its publish, not before, not on error", () => {
    const t = setup();
    t.link.onCapabilities(JSON.stringify(OUR_MANIFEST));
    t.link.onStatus("online");
    t.hubs[0]!.onFrame(command("req-a"));
    t.hubs[0]!.onFrame(command("req-b"));
    const [a, b] = t.published.filter((p) => p.topic === "evoclaw/agents/pi-1/commands");
    expect(t.sent.filter((f) => f.type === "accepted")).toEqual([]);
    a!.acked!();
    b!.acked!(new Error("connection lost"));
    expect(t.sent.filter((f) => f.type === "accepted")).toEqual([
      { type: "accepted", request_id: "req-a", by: "broker" },
    ]);
  });

  it("drops a QoS 1 repeat of a report and counts it once", () => {
    const t = setup();
    t.link.onCapabilities(JSON.stringify(OUR_MANIFEST));
    t.link.onStatus("online");
    t.hubs[0]!.onFrame(command("req-1"));
    const report = JSON.stringify({ status: "success", tool: "bash", result: "x", request_id: "req-1" });
    t.link.onReport(report);
    t.link.onReport(report);
    expect(t.sent).toHaveLength(1);
    expect(t.stats.duplicateReports).toBe(1);
  });

  it("matches a report without request_id to the oldest outstanding command for that tool, and counts the guess", () => {
    const t = setup();
    t.link.onCapabilities(JSON.stringify(OUR_MANIFEST));
    t.link.onStatus("online");
    t.hubs[0]!.onFrame(command("req-1"));
    t.advance(10);
    t.hubs[0]!.onFrame(command("req-2"));
    t.link.onReport(JSON.stringify({ status: "error", tool: "bash", error: "boom", error_type: "execution_failed" }));
    expect(t.sent).toMatchObject([{ request_id: "req-1", status: "error", error: "boom" }]);
    expect(t.stats.guessedReports).toBe(1);
  });

  it("ignores reports for commands it never sent, and counts bad payloads without throwing", () => {
    const t = setup();
    t.link.onReport(JSON.stringify({ status: "success", tool: "bash", result: "x", request_id: "not-ours" }));
    t.link.onReport("{nope");
    t.link.onReport(JSON.stringify({ status: "success" }));
    t.link.onStatus("sideways");
    expect(t.sent).toHaveLength(0);
    expect(t.stats.unmatchedReports).toBe(1);
    expect(t.stats.badPayloads).toBe(3);
  });

  it("closes the hub socket when the device goes stale or offline, and reopens when it is seen again", () => {
    const t = setup();
    t.link.onCapabilities(JSON.stringify(OUR_MANIFEST));
    t.link.onStatus("online");
    t.advance(121_000);
    t.link.tick();
    expect(t.hubs[0]!.closed).toBe(true);
    t.link.onReport(JSON.stringify({ agent_id: "pi-1", report_type: "heartbeat", payload: {}, timestamp: 1 }));
    expect(t.hubs).toHaveLength(2);
    t.link.onStatus("offline");
    expect(t.hubs[1]!.closed).toBe(true);
  });

  it("asks an EvoClaw agent for tools_list and serves its tools under a synthetic skill", () => {
    const t = setup("evo-1");
    t.link.holdToolsListFor(0);
    t.link.onStatus("online");
    const ask = t.published
      .map((p) => JSON.parse(p.payload) as { command: string })
      .find((c) => c.command === "tools_list");
    expect(ask).toBeDefined();
    t.link.onReport(
      JSON.stringify({
        agent_id: "evo-1",
        report_type: "result",
        timestamp: 1,
        payload: {
          tools: [
            {
              name: "gpio_read",
              description: "Read",
              parameters: {
                type: "object",
                properties: { pin: { type: "integer" } },
                required: ["pin"],
                additionalProperties: false,
              },
            },
          ],
          count: 1,
        },
      }),
    );
    expect(t.hubs).toHaveLength(1);
    const hello = t.hubs[0]!.hello();
    expect(hello.skills).toMatchObject([
      {
        name: "evoclaw",
        tools: [{ name: "gpio_read", category: "other", timeout_ms: 10000, parameters: { required: ["pin"] } }],
      },
    ]);
  });

  it("re-sends open commands to our agent when it comes back online (it dedupes), never to an EvoClaw agent", () => {
    const t = setup();
    t.link.onCapabilities(JSON.stringify(OUR_MANIFEST));
    t.link.onStatus("online");
    t.hubs[0]!.onFrame(command("req-1"));
    t.published.length = 0;
    t.link.onStatus("online");
    expect(t.published.map((p) => JSON.parse(p.payload).request_id)).toEqual(["req-1"]);

    const e = setup("evo-1");
    e.link.onReport(
      JSON.stringify({
        agent_id: "evo-1",
        report_type: "result",
        timestamp: 1,
        payload: { tools: [{ name: "bash", parameters: {} }] },
      }),
    );
    e.hubs[0]!.onFrame(command("req-9"));
    e.published.length = 0;
    e.link.onStatus("online");
    expect(e.published.filter((p) => JSON.parse(p.payload).command === "tool")).toHaveLength(0);
  });

  it("gives every command it publishes the three fields EvoClaw's agent requires (payload too), and sends no cancel to one", () => {
    const evoTools = JSON.stringify({
      agent_id: "evo-1",
      report_type: "result",
      timestamp: 1,
      payload: { tools: [{ name: "bash", parameters: {} }], count: 1, request_id: "tools-1" },
    });
    const e = setup("evo-1");
    e.link.holdToolsListFor(0);
    e.link.onReport(JSON.stringify({ agent_id: "evo-1", report_type: "heartbeat", payload: {}, timestamp: 1 }));
    e.link.onReport(evoTools);
    e.hubs[0]!.onFrame(command("req-1"));
    e.hubs[0]!.onFrame({ type: "command", command: "cancel", request_id: "req-1" });
    const t = setup();
    t.link.onCapabilities(JSON.stringify(OUR_MANIFEST));
    t.link.onStatus("online");
    t.hubs[0]!.onFrame(command("req-2"));
    t.hubs[0]!.onFrame({ type: "command", command: "cancel", request_id: "req-2" });

    const commands = [...e.published, ...t.published].map((p) => JSON.parse(p.payload) as Record<string, unknown>);
    expect(commands.map((c) => c.command)).toEqual(["tools_list", "tool", "tool", "cancel"]);
    for (const c of commands) {
      expect(Object.keys(c).sort()).toEqual(["command", "payload", "request_id"]);
      expect(typeof c.request_id).toBe("string");
      expect(typeof c.payload).toBe("object");
    }
    expect(commands[0]!.payload).toEqual({});
    expect(commands[3]).toEqual({ command: "cancel", payload: {}, request_id: "req-2" });
  });

  it("asks tools_list of a device known only from EvoClaw's retained capabilities; a live one counts as seen", () => {
    const caps = JSON.stringify({ agent_id: "evo-1", capabilities: "evo-1 sensor node" });
    const t = setup("evo-1");
    t.link.holdToolsListFor(0);
    t.link.onCapabilities(caps, true);
    expect(t.link.online).toBe(false); // a retained advertisement may be from an agent long gone
    expect(t.published.map((p) => JSON.parse(p.payload).command)).toEqual(["tools_list"]);
    t.link.onCapabilities(caps, false);
    expect(t.link.online).toBe(true);
    expect(t.stats.badPayloads).toBe(0);
  });
});
