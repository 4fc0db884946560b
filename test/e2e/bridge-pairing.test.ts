/**
 * The bridge pairs the devices behind it (`--pair-devices`): real wrangler dev, mosquitto, the
 * bridge and an agent over MQTT with no token configured anywhere. The device shows up on the
 * broker, the bridge logs a pairing code, an admin approves it through the API, the device
 * runs a tool; after a bridge restart it is served from the kept token, without pairing again.
 */
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScopedLlm } from "../../scripted-llm/scope-client.js";
import { sendMessage } from "../helpers/api.js";
import { ADMIN_TOKEN } from "../helpers/local-worker.js";
import { type Mosquitto, startMosquitto } from "../helpers/mosquitto.js";
import { packageBin } from "../helpers/package-bundles.js";
import { type Child, startChild } from "../helpers/processes.js";
import { joinSharedStack, type SharedStack } from "../helpers/shared-stack.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const BRIDGE_BIN = packageBin("bridge");
const AGENT_BIN = packageBin("device-agent");
const DEVICE = "mq-paired";

let llm: ScopedLlm;
let broker: Mosquitto;
let worker: SharedStack["worker"];
let bridge: Child;
let agent: Child;
const bridgeState = tempDir("edgeloop-bridge-pair-");
const workspace = tempDir("edgeloop-bridge-pair-ws-");

function startBridge(): Child {
  return startChild(
    process.execPath,
    [BRIDGE_BIN, "--url", worker.url, "--broker", broker.url, "--state-dir", bridgeState, "--pair-devices"],
    { name: "bridge" },
  );
}

const online = () =>
  waitUntil(
    async () =>
      (await (
        await fetch(`${worker.url}/v1/devices/${DEVICE}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      ).json()) as { online: boolean },
    (d) => d.online,
    { timeoutMs: 30_000, what: `${DEVICE} online\n--- bridge ---\n${bridge.output()}` },
  );

async function readMarker(text: string): Promise<string> {
  const marker = `marker-${Math.random().toString(36).slice(2)}`;
  writeFileSync(join(workspace, "marker.txt"), `${marker}\n`);
  const { body } = await sendMessage(worker.url, { agent_id: DEVICE, text }, 60);
  expect(body.reply, bridge.output()).toContain(marker);
  return marker;
}

beforeAll(async () => {
  broker = await startMosquitto();
  ({ llm, worker } = await joinSharedStack({
    scope: "bridge-pairing",
    rules: [
      {
        match: "paired behind the bridge",
        turns: [
          { tool_calls: [{ name: "read", arguments: { path: "marker.txt" } }] },
          { content: "Behind the bridge: {{last_tool_result}}" },
        ],
      },
    ],
  }));
  bridge = startBridge();
  agent = startChild(
    process.execPath,
    [AGENT_BIN, "--transport", "mqtt", "--broker", broker.url, "--agent-id", DEVICE, "--workspace", workspace],
    { name: "agent", env: { EDGELOOP_STATE_DIR: tempDir("edgeloop-bridge-pair-state-") } },
  );
});

afterAll(async () => {
  await agent?.stop();
  await bridge?.stop();
  await broker?.stop();
  await llm?.close();
});

describe("edgeloop-bridge --pair-devices", () => {
  it("asks to pair a device it discovers, serves it once approved, and keeps its token across restarts", async () => {
    const waiting = await waitUntil(
      async () => bridge.output().match(/"msg":"device waiting for pairing approval"[^\n]*"code":"([2-9A-Z-]{9})"/),
      (m) => m !== null,
      { timeoutMs: 30_000, what: `a pairing code in the bridge's log:\n${bridge.output()}` },
    );
    const code = waiting![1]!;
    const listed = (await (
      await fetch(`${worker.url}/v1/pairing`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).json()) as { pending: { code: string; agent_id: string; kind: string }[] };
    expect(listed.pending).toContainEqual(expect.objectContaining({ code, agent_id: DEVICE, kind: "bridge-device" }));

    const approved = await fetch(`${worker.url}/v1/pairing/${code}/approve`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(approved.status).toBe(200);
    await online();
    await readMarker("read it, paired behind the bridge");
    const file = join(bridgeState, "paired-devices.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(bridgeState).mode & 0o777).toBe(0o700);

    await bridge.stop();
    const before = bridge.output();
    bridge = startBridge();
    await online();
    await readMarker("again, paired behind the bridge");
    expect(bridge.output()).not.toContain("device waiting for pairing approval");
    expect(before).toContain('"msg":"device paired"');
  });
});
