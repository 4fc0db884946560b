/**
 * MQTT end to end with real processes: wrangler dev (the worker) with the scripted model →
 * `edgeloop-bridge` → a real mosquitto → `edgeloop-agent --transport mqtt` running the bundled
 * skills' binaries; and an EvoClaw-style edge agent, written here with the `mqtt` package, that
 * speaks the envelope protocol (tools_list, tool commands, heartbeats) the way its code does.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectAsync, type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlm } from "../../scripted-llm/server.js";
import { getConversation, sendMessage } from "../helpers/api.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { ADMIN_TOKEN, type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { type Mosquitto, startMosquitto } from "../helpers/mosquitto.js";
import { type Child, REPO_ROOT, startChild } from "../helpers/processes.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const MQ_TOKEN = "e2e-mqtt-token-mq-1";
const EVO_TOKEN = "e2e-mqtt-token-evo-1";
const BRIDGE_BIN = join(REPO_ROOT, "bridge/bin/edgeloop-bridge.js");

let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
let broker: Mosquitto;
let worker: LocalWorker;
let bridge: Child;
let agent: AgentProcess;
let evo: EvoClawPeer;
let workspace: string;
const bridgeState = tempDir("edgeloop-bridge-state-");
/** Output of bridges that were stopped, for failure messages. */
let bridgeLogs = "";

function startBridge(): Child {
  return startChild(
    process.execPath,
    [
      BRIDGE_BIN,
      "--url",
      worker.url,
      "--broker",
      broker.url,
      "--device",
      `mq-1:${MQ_TOKEN}`,
      "--device",
      `evo-1:${EVO_TOKEN}`,
      "--state-dir",
      bridgeState,
      "--bridge-id",
      "e2e",
      "--log-level",
      "debug",
    ],
    { name: "bridge" },
  );
}

function logLines(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        return {};
      }
    });
}

async function device(
  id: string,
): Promise<{ online: boolean; counters: Record<string, number>; skills: { tools: { name: string }[] }[] }> {
  const res = await fetch(`${worker.url}/v1/devices/${id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return (await res.json()) as never;
}

// ---- an EvoClaw edge agent, as its code publishes ----------------------------------------------

type EvoClawPeer = { client: MqttClient; commands: Record<string, unknown>[]; close: () => Promise<void> };

async function startEvoClawPeer(url: string, agentId: string): Promise<EvoClawPeer> {
  const topic = (k: string) => `evoclaw/agents/${agentId}/${k}`;
  const commands: Record<string, unknown>[] = [];
  const client = await connectAsync(url, {
    clientId: `evoclaw-${agentId}`,
    clean: false,
    reconnectPeriod: 500,
    will: { topic: topic("status"), payload: Buffer.from("offline"), qos: 1, retain: true },
  });
  const envelope = (report_type: string, payload: unknown) =>
    JSON.stringify({
      agent_id: agentId,
      agent_type: "pi",
      report_type,
      payload,
      timestamp: Math.floor(Date.now() / 1000),
    });
  const report = (body: string) => client.publish(topic("reports"), body, { qos: 1 });
  const announce = () => {
    client.subscribe(topic("commands"), { qos: 1 });
    // Its own capabilities shape, not ours: the bridge must ask tools_list.
    client.publish(topic("capabilities"), JSON.stringify({ agent_id: agentId, capabilities: ["gpio"] }), {
      qos: 1,
      retain: true,
    });
    client.publish(topic("status"), "online", { qos: 1, retain: true });
    report(envelope("heartbeat", { cpu_percent: 3.5, memory_mb: 120 }));
  };
  client.on("connect", announce);
  announce();
  client.on("message", (_t, payload) => {
    const cmd = JSON.parse(payload.toString()) as {
      command: string;
      request_id?: string;
      payload?: { tool: string; parameters: Record<string, unknown>; request_id: string };
    };
    commands.push(cmd);
    if (cmd.command === "ping") return void report(envelope("result", { pong: true }));
    if (cmd.command === "tools_list") {
      const tools = [
        {
          name: "gpio_read",
          description: "Read a GPIO pin",
          parameters: {
            type: "object",
            properties: { pin: { type: "integer", description: "BCM pin" } },
            required: ["pin"],
            additionalProperties: false,
          },
        },
        { name: "fail_tool", description: "Always fails", parameters: { type: "object", properties: {} } },
        {
          name: "flat_tool",
          description: "Answers in seed 000's flat shape, without request_id",
          parameters: { type: "object", properties: {} },
        },
        {
          name: "dup_tool",
          description: "Answers twice (QoS 1 style)",
          parameters: { type: "object", properties: {} },
        },
        {
          name: "broken_tool",
          description: "A command this agent cannot handle",
          parameters: { type: "object", properties: {} },
        },
      ];
      return void report(envelope("result", { tools, count: tools.length, request_id: cmd.request_id }));
    }
    if (cmd.command !== "tool" || !cmd.payload)
      return void report(envelope("error", { error: `unknown command ${cmd.command}`, request_id: cmd.request_id }));
    const { tool, request_id } = cmd.payload;
    if (tool === "gpio_read")
      report(
        envelope("result", {
          status: "success",
          tool,
          result: `GPIO ${String(cmd.payload.parameters.pin)}: level=1`,
          elapsed_ms: 3,
          request_id,
        }),
      );
    else if (tool === "fail_tool")
      report(envelope("result", { status: "error", tool, error: "sensor not connected", elapsed_ms: 2, request_id }));
    else if (tool === "flat_tool")
      report(JSON.stringify({ status: "success", tool, result: "flat-ok", stderr: "", exit_code: 0, elapsed_ms: 5 }));
    else if (tool === "dup_tool") {
      const body = JSON.stringify({
        status: "success",
        tool,
        result: "dup-ok",
        stderr: "",
        exit_code: 0,
        elapsed_ms: 1,
        request_id,
      });
      report(body);
      report(body);
    } else report(envelope("error", { error: `cannot handle ${tool}`, request_id }));
  });
  return { client, commands, close: () => client.endAsync(true) };
}

beforeAll(async () => {
  workspace = tempDir("edgeloop-mqtt-ws-");
  llm = await startScriptedLlm({
    port: 0,
    rules: [
      {
        match: "marker over mqtt",
        turns: [
          { tool_calls: [{ name: "bash", arguments: { command: "cat marker.txt" } }] },
          { content: "The device says: {{last_tool_result}}" },
        ],
      },
      {
        match: "check the evoclaw tools",
        turns: [
          {
            tool_calls: [
              { name: "gpio_read", arguments: { pin: 17 } },
              { name: "fail_tool", arguments: {} },
              { name: "flat_tool", arguments: {} },
              { name: "dup_tool", arguments: {} },
              { name: "broken_tool", arguments: {} },
            ],
          },
          { content: "Results:\n{{tool_results}}" },
        ],
      },
      {
        match: "slow through a broker restart",
        turns: [
          { tool_calls: [{ name: "bash", arguments: { command: "sleep 4; echo slow-done", timeout_ms: 60000 } }] },
          { content: "Slow: {{last_tool_result}}" },
        ],
      },
      {
        match: "survive a bridge restart",
        turns: [
          {
            tool_calls: [
              {
                name: "bash",
                arguments: {
                  command: "echo run >> runs.txt; sleep 4; echo bridged-$(wc -l < runs.txt)",
                  timeout_ms: 60000,
                },
              },
            ],
          },
          { content: "Bridge: {{last_tool_result}}" },
        ],
      },
    ],
  });
  broker = await startMosquitto();
  worker = await startLocalWorker({
    vars: {
      OPENAI_BASE_URL: llm.url,
      OPENAI_API_KEY: "scripted",
      LLM_MODEL: "scripted",
      DEVICE_TOKENS: `mq-1:${MQ_TOKEN},evo-1:${EVO_TOKEN}`,
      DEVICE_RESULT_GRACE_MS: "2000",
    },
  });
  bridge = startBridge();
  // The agent has no WebSocket: it is online at the hub once the bridge has its retained capabilities.
  agent = await startAgent({
    url: worker.url,
    agentId: "mq-1",
    token: "unused-over-mqtt",
    workspace,
    extraArgs: ["--transport", "mqtt", "--broker", broker.url],
  }).catch((e: Error) => {
    throw new Error(`${e.message}\n--- bridge ---\n${bridge.output()}`);
  });
  evo = await startEvoClawPeer(broker.url, "evo-1");
  await waitUntil(
    () => device("evo-1"),
    (d) => d.online && d.skills.length > 0,
    { timeoutMs: 30_000, what: "evo-1 online through tools_list" },
  ).catch((e: Error) => {
    throw new Error(`${e.message}\n--- bridge ---\n${bridge.output()}`);
  });
});

afterAll(async () => {
  await evo?.close();
  await agent?.stop();
  await bridge?.stop();
  await worker?.stop();
  await broker?.stop();
  await llm?.close();
});

describe("MQTT: worker → bridge → mosquitto → device", () => {
  it("runs the full loop with our agent on MQTT: a real skill binary's output reaches the reply", async () => {
    const marker = `marker-${Math.random().toString(36).slice(2)}`;
    writeFileSync(join(workspace, "marker.txt"), `${marker}\n`);
    const { status, body } = await sendMessage(worker.url, { agent_id: "mq-1", text: "read the marker over mqtt" }, 60);
    expect(status, bridge.output()).toBe(200);
    expect(body.status).toBe("completed");
    expect(body.tool_calls).toMatchObject([{ name: "bash", status: "success" }]);
    expect(body.reply).toContain(marker);
    // The hub saw an ordinary device: the manifest came from the agent's retained capabilities.
    const d = await device("mq-1");
    expect(d.skills.flatMap((s) => s.tools.map((t) => t.name))).toEqual(expect.arrayContaining(["bash", "read"]));
    // The command went over MQTT in the exact EvoClaw shape (no `type`).
    const fwd = logLines(bridge.output()).find((l) => l.msg === "report" && l.agent_id === "mq-1");
    expect(fwd).toMatchObject({ status: "success", shape: "flat" });
  });

  it("serves an EvoClaw edge agent: tools from tools_list, envelope and flat reports, a duplicate dropped", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: "evo-1", text: "check the evoclaw tools" }, 60);
    expect(body.status, bridge.output()).toBe("completed");
    const byName = Object.fromEntries(body.tool_calls.map((c) => [c.name, c]));
    expect(byName.gpio_read).toMatchObject({ status: "success" });
    expect(byName.flat_tool).toMatchObject({ status: "success" });
    expect(byName.dup_tool).toMatchObject({ status: "success" });
    // A failed tool comes as report_type "result" with status "error" and no error_type.
    expect(byName.fail_tool).toMatchObject({ status: "error", error_type: "execution_failed" });
    expect(byName.broken_tool).toMatchObject({ status: "error", error_type: "execution_failed" });
    expect(body.reply).toContain("GPIO 17: level=1");
    expect(body.reply).toContain("flat-ok");
    expect(body.reply).toContain("sensor not connected");

    // Commands reached the peer in the EvoClaw shape.
    const gpio = evo.commands.find(
      (c) => c.command === "tool" && (c.payload as { tool: string }).tool === "gpio_read",
    )!;
    expect(Object.keys(gpio).sort()).toEqual(["command", "payload", "request_id"]);
    expect(gpio.payload).toMatchObject({ tool: "gpio_read", parameters: { pin: 17 }, request_id: gpio.request_id });
    expect(typeof (gpio.payload as { timeout_ms: unknown }).timeout_ms).toBe("number");

    // The duplicate was dropped by the bridge (counted once there), so the hub never saw it.
    const lines = logLines(bridge.output());
    const dupId = (
      evo.commands.find((c) => c.command === "tool" && (c.payload as { tool: string }).tool === "dup_tool") as {
        request_id: string;
      }
    ).request_id;
    await waitUntil(
      async () =>
        logLines(bridge.output()).filter((l) => l.msg === "duplicate report dropped" && l.request_id === dupId).length,
      (n) => n >= 1,
      { timeoutMs: 10_000, what: "duplicate logged" },
    );
    expect(
      logLines(bridge.output()).filter((l) => l.msg === "duplicate report dropped" && l.request_id === dupId),
    ).toHaveLength(1);
    expect(lines.filter((l) => l.msg === "report" && l.request_id === dupId)).toHaveLength(1);
    expect((await device("evo-1")).counters.duplicate_results ?? 0).toBe(0);
    // The flat report had no request_id: matched by tool, and the bridge said it guessed.
    expect(lines.some((l) => String(l.msg).startsWith("report without request_id") && l.tool === "flat_tool")).toBe(
      true,
    );
  });

  it("a broker restart in the middle of a call: the call still ends, cleanly", async () => {
    const forwarded = () =>
      logLines(bridge.output()).filter((l) => l.msg === "command forwarded" && l.agent_id === "mq-1").length;
    const before = forwarded();
    const pending = sendMessage(worker.url, { agent_id: "mq-1", text: "slow through a broker restart" }, 60);
    await waitUntil(
      async () => forwarded(),
      (n) => n > before,
      { timeoutMs: 30_000, what: "the slow command to be forwarded" },
    );
    await new Promise((r) => setTimeout(r, 500));
    await broker.stop();
    await new Promise((r) => setTimeout(r, 1_000));
    await broker.start();
    const { body } = await pending;
    // Completed with the tool's output, or ended with a clean tool error: never left running.
    expect(body.status, `${bridge.output()}\n--- agent ---\n${agent.child.output()}`).toBe("completed");
    if (body.tool_calls[0]?.status === "success") expect(body.reply).toContain("slow-done");
    else expect(body.tool_calls[0]).toMatchObject({ status: "error" });
    expect(body.tool_calls).toHaveLength(1);
    // Both sides came back: the next call works.
    await waitUntil(
      () => device("mq-1"),
      (d) => d.online,
      { timeoutMs: 30_000, what: "mq-1 online again" },
    );
  });

  it("a bridge killed with a command outstanding: after its restart the call completes, and the tool ran once", async () => {
    const runs = join(workspace, "runs.txt");
    const pending = sendMessage(worker.url, { agent_id: "mq-1", text: "survive a bridge restart" }, 60);
    await waitUntil(
      async () => existsSync(runs),
      (ok) => ok,
      { timeoutMs: 30_000, what: "the tool to start" },
    );
    bridgeLogs += bridge.output();
    await bridge.stop("SIGKILL");
    await new Promise((r) => setTimeout(r, 1_500));
    bridge = startBridge();
    const { body } = await pending;
    expect(body.status, `${bridgeLogs}\n--- new bridge ---\n${bridge.output()}`).toBe("completed");
    expect(body.tool_calls).toMatchObject([{ name: "bash", status: "success" }]);
    expect(body.reply).toContain("bridged-1");
    expect(readFileSync(runs, "utf8").trim().split("\n")).toHaveLength(1);
    const conv = await getConversation(worker.url, body.conversation_id);
    expect(conv.messages.filter((m) => m.role === "tool")).toHaveLength(1);
  });
});
