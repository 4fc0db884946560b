/**
 * `edgeloop-agent --transport mqtt` against a real mosquitto: the EvoClaw topics, retained
 * capabilities/status, and exactly-once by request_id when QoS 1 delivers a command twice.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { connectAsync, type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mosquitto, startMosquitto } from "../../helpers/mosquitto.js";
import { type Child, startChild } from "../../helpers/processes.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { waitUntil } from "../../helpers/wait.js";
import { AGENT_BIN, BASIC } from "../agent/helpers.js";

let broker: Mosquitto;
let agent: Child;
let client: MqttClient;
const workspace = tempDir("edgeloop-mqtt-agent-ws-");
const received: { topic: string; payload: string; retain: boolean }[] = [];
const T = (k: string) => `evoclaw/agents/mq-unit/${k}`;

beforeAll(async () => {
  broker = await startMosquitto();
  client = await connectAsync(broker.url, { clientId: "unit-orchestrator" });
  client.on("message", (topic, payload, packet) =>
    received.push({ topic, payload: payload.toString(), retain: packet.retain }),
  );
  await client.subscribeAsync(["evoclaw/agents/mq-unit/#"], { qos: 1 });
  agent = startChild(
    process.execPath,
    [
      AGENT_BIN,
      "--transport",
      "mqtt",
      "--broker",
      broker.url,
      "--agent-id",
      "mq-unit",
      "--skills",
      BASIC,
      "--workspace",
      workspace,
      "--state-dir",
      tempDir("edgeloop-mqtt-agent-state-"),
    ],
    { name: "agent" },
  );
  await waitUntil(
    async () => received.some((m) => m.topic === T("status") && m.payload === "online"),
    (ok) => ok,
    { timeoutMs: 30_000, what: "agent online" },
  ).catch((e: Error) => {
    throw new Error(`${e.message}\n${agent.output()}`);
  });
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await client?.endAsync(true);
  await broker?.stop();
});

const reportsFor = (id: string) =>
  received
    .filter((m) => m.topic === T("reports"))
    .map((m) => JSON.parse(m.payload) as Record<string, unknown>)
    .filter((r) => r.request_id === id);

describe("the agent's MQTT transport", () => {
  it("publishes its manifest as retained capabilities (no held list)", () => {
    const caps = received.find((m) => m.topic === T("capabilities"))!;
    const manifest = JSON.parse(caps.payload) as {
      type: string;
      agent_id: string;
      skills: { tools: { name: string }[] }[];
      held?: unknown;
    };
    expect(manifest).toMatchObject({ type: "hello", protocol: 1, agent_id: "mq-unit" });
    expect(manifest.held).toBeUndefined();
    expect(manifest.skills[0]!.tools.map((t) => t.name)).toContain("echo");
  });

  it("runs a command once although QoS 1 delivered it twice, and answers both in the EvoClaw flat shape", async () => {
    const id = `req-${Date.now()}`;
    const cmd = JSON.stringify({
      command: "tool",
      payload: { tool: "echo", parameters: { text: "hi" }, timeout_ms: 10_000, request_id: id },
      request_id: id,
    });
    await client.publishAsync(T("commands"), cmd, { qos: 1 });
    await client.publishAsync(T("commands"), cmd, { qos: 1 });
    await waitUntil(
      async () => reportsFor(id).length,
      (n) => n >= 1,
      { timeoutMs: 20_000, what: "the report" },
    );
    await new Promise((r) => setTimeout(r, 1_000));
    const reports = reportsFor(id);
    expect(reports[0]).toMatchObject({ status: "success", tool: "echo", exit_code: 0, request_id: id });
    expect(reports[0]!.type).toBeUndefined();
    // The fixture appends each run's request id to runs.log.
    const runs = existsSync(join(workspace, "runs.log"))
      ? readFileSync(join(workspace, "runs.log"), "utf8")
          .split("\n")
          .filter((l) => l.includes(id))
      : [];
    expect(runs).toHaveLength(1);
  });

  it("answers tools_list and ping in the EvoClaw envelope, and ignores garbage and commands without a payload", async () => {
    await client.publishAsync(T("commands"), "{garbage", { qos: 1 });
    // As EvoClaw's agent does: `payload` is required, even where there is nothing in it.
    await client.publishAsync(T("commands"), JSON.stringify({ command: "tools_list", request_id: "tl-0" }), { qos: 1 });
    await client.publishAsync(T("commands"), JSON.stringify({ command: "ping", payload: {}, request_id: "p-1" }), {
      qos: 1,
    });
    await client.publishAsync(
      T("commands"),
      JSON.stringify({ command: "tools_list", payload: {}, request_id: "tl-1" }),
      { qos: 1 },
    );
    await waitUntil(
      async () =>
        received
          .filter((m) => m.topic === T("reports"))
          .map((m) => JSON.parse(m.payload) as { report_type?: string; payload?: { request_id?: string } })
          .find((r) => r.payload?.request_id === "tl-1"),
      (r) => r !== undefined,
      { timeoutMs: 20_000, what: "tools_list answer" },
    ).then((r) => {
      expect(r).toMatchObject({
        agent_id: "mq-unit",
        report_type: "result",
        payload: {
          count: expect.any(Number),
          tools: expect.arrayContaining([expect.objectContaining({ name: "echo" })]),
        },
      });
      expect(typeof (r as { timestamp: number }).timestamp).toBe("number");
    });
    const answered = received
      .filter((m) => m.topic === T("reports"))
      .map((m) => JSON.parse(m.payload) as { payload?: { request_id?: string; pong?: boolean } })
      .filter((r) => r.payload?.request_id !== undefined);
    expect(answered.find((r) => r.payload?.request_id === "p-1")?.payload).toEqual({ pong: true, request_id: "p-1" });
    expect(answered.some((r) => r.payload?.request_id === "tl-0")).toBe(false);
    expect(agent.output().match(/bad command ignored/g)).toHaveLength(2);
  });

  it("says offline on a clean stop", async () => {
    await agent.stop("SIGTERM");
    await waitUntil(
      async () => received.filter((m) => m.topic === T("status")).at(-1)?.payload,
      (p) => p === "offline",
      { timeoutMs: 10_000, what: "status offline" },
    );
  });
});
