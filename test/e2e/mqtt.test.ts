/**
 * MQTT end to end with real processes: wrangler dev (the worker) with the scripted model →
 * `edgeloop-bridge` → a real mosquitto → `edgeloop-agent --transport mqtt` running the bundled
 * skills' binaries; and an EvoClaw edge agent as strict as the real one (test/helpers/evoclaw-peer.ts).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { getConversation, sendMessage } from "../helpers/api.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { type EvoClawPeer, type EvoTool, startEvoClawPeer } from "../helpers/evoclaw-peer.js";
import { ADMIN_TOKEN, type LocalWorker } from "../helpers/local-worker.js";
import { type Mosquitto, startMosquitto } from "../helpers/mosquitto.js";
import { packageBin } from "../helpers/package-bundles.js";
import { type Child, startChild } from "../helpers/processes.js";
import { startScriptedStack } from "../helpers/scripted-stack.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const MQ_TOKEN = "e2e-mqtt-token-mq-1";
const EVO_TOKEN = "e2e-mqtt-token-evo-1";
const BRIDGE_BIN = packageBin("bridge");

let llm: ScriptedLlm;
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

async function device(id: string): Promise<{
  online: boolean;
  offline_reason: string | null;
  counters: Record<string, number>;
  skills: { tools: { name: string }[] }[];
}> {
  const res = await fetch(`${worker.url}/v1/devices/${id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return (await res.json()) as never;
}

/** The EvoClaw peer's tools, answering the way EdgeTools does: objects as output, errors as text. */
const EVO_TOOLS: Record<string, EvoTool> = {
  gpio_read: {
    description: "Read the state of a GPIO pin (HIGH=1 or LOW=0)",
    parameters: {
      type: "object",
      properties: { pin: { type: "integer", description: "GPIO pin number (BCM numbering)" } },
      required: ["pin"],
    },
    run: (p) => ({ success: true, output: { pin: p.pin, value: 1, state: "HIGH" } }),
  },
  read_temperature: {
    description: "Read the CPU temperature of the Raspberry Pi in Celsius",
    parameters: { type: "object", properties: {}, required: [] },
    run: () => ({ success: true, output: { temperature_c: 48.3, source: "/sys/class/thermal/thermal_zone0/temp" } }),
  },
  // As EdgeTools reads a file: at most max_bytes (4096 by default), UTF-8 text as is.
  read_file: {
    description: "Read contents of a file (limited to safe paths)",
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, max_bytes: { type: "integer" } },
      required: ["path"],
    },
    run: (p) => {
      const all = readFileSync(String(p.path));
      const max = typeof p.max_bytes === "number" ? p.max_bytes : 4096;
      const content = all.subarray(0, max);
      const truncated = all.length > max;
      const output = { path: p.path, content: content.toString("utf8"), size_bytes: content.length, truncated };
      return { success: true, output: { ...output, encoding: "utf8" } };
    },
  },
  camera_capture: {
    description: "Capture an image from the Raspberry Pi camera",
    parameters: { type: "object", properties: { width: { type: "integer" } }, required: [] },
    run: () => ({ success: false, error: "camera not connected" }),
  },
};

/** A 12 KB file: read whole, its report would be over the agent's 10 KiB packet limit. */
const BIG_FILE = join(tempDir("edgeloop-evo-files-"), "big.txt");

beforeAll(async () => {
  workspace = tempDir("edgeloop-mqtt-ws-");
  writeFileSync(BIG_FILE, `${"sensor log line\n".repeat(750)}`);
  broker = await startMosquitto();
  ({ llm, worker } = await startScriptedStack({
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
              { name: "read_temperature", arguments: {} },
              { name: "camera_capture", arguments: { width: 640 } },
            ],
          },
          { content: "Results:\n{{tool_results}}" },
        ],
      },
      {
        match: "read the big file",
        turns: [
          { tool_calls: [{ name: "read_file", arguments: { path: BIG_FILE, max_bytes: 20000 } }] },
          { content: "File: {{last_tool_result}}" },
        ],
      },
      {
        match: "gpio after the restart",
        turns: [{ tool_calls: [{ name: "gpio_read", arguments: { pin: 4 } }] }, { content: "done" }],
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
    devices: { "mq-1": MQ_TOKEN, "evo-1": EVO_TOKEN },
    vars: {
      DEVICE_RESULT_GRACE_MS: "2000",
    },
  }));
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
  evo = await startEvoClawPeer(broker.url, "evo-1", { tools: EVO_TOOLS });
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

  it("serves an EvoClaw edge agent as strict as the real one: tools from tools_list, results and errors in its envelope", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: "evo-1", text: "check the evoclaw tools" }, 60);
    expect(body.status, bridge.output()).toBe("completed");
    const byName = Object.fromEntries(body.tool_calls.map((c) => [c.name, c]));
    expect(byName.gpio_read).toMatchObject({ status: "success" });
    expect(byName.read_temperature).toMatchObject({ status: "success" });
    // A failed tool comes as report_type "result" with status "error" and no error_type.
    expect(byName.camera_capture).toMatchObject({ status: "error", error_type: "execution_failed" });
    // EdgeTools' output is a JSON object: the model gets it as JSON text.
    expect(body.reply).toContain('{"pin":17,"value":1,"state":"HIGH"}');
    expect(body.reply).toContain('"temperature_c":48.3');
    expect(body.reply).toContain("camera not connected");

    // Every command the bridge sent parsed as EvoClaw's struct; none was dropped.
    expect(evo.rejected).toEqual([]);
    expect(evo.commands.find((c) => c.command === "tools_list")).toMatchObject({ payload: {} });
    const gpio = evo.commands.find(
      (c) => c.command === "tool" && (c.payload as { tool: string }).tool === "gpio_read",
    )!;
    expect(gpio.payload).toMatchObject({ tool: "gpio_read", parameters: { pin: 17 }, request_id: gpio.request_id });
    expect(typeof (gpio.payload as { timeout_ms: unknown }).timeout_ms).toBe("number");
    const conv = await getConversation(worker.url, body.conversation_id);
    expect(conv.messages.filter((m) => m.role === "tool")).toHaveLength(3);
  });

  it("read_file of a 12 KB file with a larger max_bytes: the bridge asks for what the agent's report can carry", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: "evo-1", text: "read the big file" }, 60);
    expect(body.status, bridge.output()).toBe("completed");
    expect(body.tool_calls).toMatchObject([{ name: "read_file", status: "success" }]);
    expect(body.reply).toContain('"truncated":true');
    expect(body.reply).toContain('"size_bytes":4096');
    // The agent took the command and sent its report without dropping its connection.
    expect(evo.oversized).toEqual([]);
    const read = evo.commands.find((c) => (c.payload as { tool?: string }).tool === "read_file")!;
    expect((read.payload as { parameters: unknown }).parameters).toEqual({ path: BIG_FILE, max_bytes: 4096 });
  });

  it("the EvoClaw peer is that strict: a command without payload is dropped, unanswered", async () => {
    const before = evo.reports.length;
    await evo.client.publishAsync(
      "evoclaw/agents/evo-1/commands",
      JSON.stringify({ command: "ping", request_id: "p-0" }),
      {
        qos: 1,
      },
    );
    await evo.client.publishAsync(
      "evoclaw/agents/evo-1/commands",
      JSON.stringify({ command: "ping", payload: {}, request_id: "p-1" }),
      { qos: 1 },
    );
    await waitUntil(
      async () => evo.reports.slice(before).filter((r) => r.report_type === "result").length,
      (n) => n >= 1,
      { timeoutMs: 10_000, what: "the pong" },
    );
    expect(evo.rejected).toMatchObject([{ reason: "missing field `payload`" }]);
    expect(evo.reports.slice(before).filter((r) => r.report_type !== "heartbeat")).toHaveLength(1);
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

  it("the EvoClaw agent, which never subscribes again after the broker restart, shows offline with a reason; a call to it ends not_sent", async () => {
    // The bridge pings it after its own reconnect; the agent keeps sending heartbeats, but never answers.
    const d = await waitUntil(
      () => device("evo-1"),
      (v) => !v.online && v.offline_reason !== null,
      { timeoutMs: 45_000, what: `evo-1 offline with a reason\n${bridge.output().slice(-4000)}` },
    );
    expect(d.offline_reason).toContain("restart the agent");
    const { body } = await sendMessage(worker.url, { agent_id: "evo-1", text: "gpio after the restart" }, 60);
    expect(body.tool_calls).toMatchObject([{ name: "gpio_read", status: "error", error_type: "not_sent" }]);
    const conv = await getConversation(worker.url, body.conversation_id);
    expect(conv.messages.find((m) => m.role === "tool")!.content).toContain("restart the agent");
    // Nothing reached the agent: the bridge never sent it.
    expect(evo.commands.filter((c) => (c.payload as { parameters?: { pin?: number } }).parameters?.pin === 4)).toEqual(
      [],
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
