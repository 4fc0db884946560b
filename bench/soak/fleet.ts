/**
 * Everything the soak runs, each on state that survives its restarts: the runtime (wrangler's
 * dev server without the inspector, one persist dir, one port), a cutting proxy in front of it
 * for the devices, mosquitto with persistence, the bridge (one state dir), and the device agents
 * (each its own workspace and state dir), some on WebSocket and some on MQTT behind the bridge.
 * The chaos driver kills and restarts these; the workload talks to the runtime directly.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ADMIN_TOKEN, type LocalWorker, startLocalWorker } from "../../test/helpers/local-worker.js";
import { REPO_ROOT } from "../../test/helpers/processes.js";
import { waitUntil } from "../../test/helpers/wait.js";
import { packagedBundles } from "../lib/packaged-bundles.js";
import { type SoakBroker, startSoakBroker } from "./broker.js";
import { ManagedProcess } from "./managed-process.js";
import { type CuttingProxy, startCuttingProxy } from "./tcp-proxy.js";

export const SOAK_SKILLS = join(REPO_ROOT, "bench/fixtures/soak-tools");
/** Heartbeats every 5 s on both sides: a dead link is noticed in seconds, not a minute. */
const HEARTBEAT_MS = 5_000;

export type AgentSpec = { id: string; transport: "ws" | "mqtt"; token: string; workspace: string; stateDir: string };
export type SoakAgent = AgentSpec & { proc: ManagedProcess };

export const tokenOf = (agentId: string) => `soak-token-${agentId}`;

export function soakWorkerVars(llmUrl: string, agentIds: string[]): Record<string, string> {
  return {
    OPENAI_BASE_URL: llmUrl,
    OPENAI_API_KEY: "scripted",
    LLM_MODEL: "scripted",
    LLM_MAX_RETRIES: "10",
    DEVICE_TOKENS: agentIds.map((id) => `${id}:${tokenOf(id)}`).join(","),
    TOOL_POLICIES: "soak_guarded:requires_approval",
    HEARTBEAT_INTERVAL_MS: String(HEARTBEAT_MS),
    HEARTBEAT_MISSES: "3",
    MIN_SCHEDULE_SECONDS: "5",
    // The soak is about losing nothing, not about the front door's limits.
    RATE_LIMIT_SENDER_PER_MIN: "1000000",
    RATE_LIMIT_SENDER_BURST: "1000000",
    RATE_LIMIT_AGENT_PER_MIN: "1000000",
    RATE_LIMIT_AGENT_BURST: "1000000",
    MAX_OPEN_CONVERSATIONS_PER_AGENT: "1000000",
  };
}

export type Fleet = {
  runtime: () => LocalWorker;
  /** the runtime's own URL (the workload's); devices go through `proxy` */
  url: string;
  proxy: CuttingProxy;
  broker: SoakBroker;
  bridge: ManagedProcess;
  agents: SoakAgent[];
  runtimeStarts: () => number;
  killRuntime: () => Promise<void>;
  startRuntime: () => Promise<void>;
  stop: () => Promise<void>;
};

export async function startFleet(opts: {
  dir: string;
  llmUrl: string;
  wsAgents: number;
  mqttAgents: number;
}): Promise<Fleet> {
  const logDir = join(opts.dir, "logs");
  mkdirSync(logDir, { recursive: true });
  const { agent: AGENT_BIN, bridge: BRIDGE_BIN } = await packagedBundles();
  const specs: AgentSpec[] = [];
  const add = (id: string, transport: AgentSpec["transport"]) => {
    const workspace = join(opts.dir, "agents", id, "workspace");
    const stateDir = join(opts.dir, "agents", id, "state");
    mkdirSync(workspace, { recursive: true });
    mkdirSync(stateDir, { recursive: true });
    specs.push({ id, transport, token: tokenOf(id), workspace, stateDir });
  };
  for (let i = 0; i < opts.wsAgents; i++) add(`soak-ws-${String(i).padStart(2, "0")}`, "ws");
  for (let i = 0; i < opts.mqttAgents; i++) add(`soak-mq-${String(i).padStart(2, "0")}`, "mqtt");

  const vars = soakWorkerVars(
    opts.llmUrl,
    specs.map((s) => s.id),
  );
  const persistDir = join(opts.dir, "runtime-state");
  let worker = await startLocalWorker({ vars, persistDir, inspector: false, name: "runtime" });
  let runtimeStarts = 1;
  let runtimeLog = "";
  const proxy = await startCuttingProxy(worker.port);
  const brokerDir = join(opts.dir, "broker");
  mkdirSync(brokerDir, { recursive: true });
  const broker = await startSoakBroker(brokerDir);

  const mqttSpecs = specs.filter((s) => s.transport === "mqtt");
  const bridge = new ManagedProcess(
    "bridge",
    process.execPath,
    [
      BRIDGE_BIN,
      "--url",
      proxy.url,
      "--broker",
      broker.url,
      ...mqttSpecs.flatMap((s) => ["--device", `${s.id}:${s.token}`]),
      "--state-dir",
      join(opts.dir, "bridge-state"),
      "--bridge-id",
      "soak",
      "--heartbeat-ms",
      String(HEARTBEAT_MS),
      "--log-level",
      "info",
    ],
    logDir,
  );
  if (mqttSpecs.length > 0) bridge.start();

  const agents: SoakAgent[] = specs.map((s) => ({
    ...s,
    proc: new ManagedProcess(
      `agent-${s.id}`,
      process.execPath,
      [
        AGENT_BIN,
        "--agent-id",
        s.id,
        "--workspace",
        s.workspace,
        "--state-dir",
        s.stateDir,
        "--skills",
        SOAK_SKILLS,
        "--sandboxing",
        "none",
        "--heartbeat-ms",
        String(HEARTBEAT_MS),
        "--reconnect-max-ms",
        "3000",
        ...(s.transport === "ws"
          ? ["--url", proxy.url, "--token", s.token]
          : ["--transport", "mqtt", "--broker", broker.url]),
      ],
      logDir,
    ),
  }));
  for (const a of agents) a.proc.start();

  const fleet: Fleet = {
    runtime: () => worker,
    url: worker.url,
    proxy,
    broker,
    bridge,
    agents,
    runtimeStarts: () => runtimeStarts,
    killRuntime: async () => {
      runtimeLog += `${worker.child.output()}\n=== SIGKILL at ${new Date().toISOString()} ===\n`;
      await worker.kill();
    },
    startRuntime: async () => {
      worker = await startLocalWorker({ vars, persistDir, port: worker.port, inspector: false, name: "runtime" });
      runtimeStarts++;
    },
    stop: async () => {
      for (const a of agents) await a.proc.stop().catch(() => undefined);
      await bridge.stop().catch(() => undefined);
      runtimeLog += worker.child.output();
      await worker.stop().catch(() => undefined);
      await broker.stop().catch(() => undefined);
      await proxy.close();
      writeFileSync(join(logDir, "runtime.log"), runtimeLog);
      writeFileSync(join(logDir, "broker.log"), broker.output());
    },
  };
  try {
    await waitForDevices(
      fleet.url,
      specs.map((s) => s.id),
      120_000,
    );
  } catch (e) {
    await fleet.stop();
    throw e;
  }
  return fleet;
}

/** Every device online at its hub (the registry's view). */
export async function waitForDevices(url: string, ids: string[], timeoutMs: number): Promise<void> {
  await waitUntil(
    async () => {
      const res = await fetch(`${url}/v1/devices`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      const body = (await res.json()) as { devices: { agent_id: string; online: boolean }[] };
      const online = new Set(body.devices.filter((d) => d.online).map((d) => d.agent_id));
      return ids.filter((id) => !online.has(id));
    },
    (missing) => missing.length === 0,
    { timeoutMs, intervalMs: 500, what: "every soak device online" },
  );
}
