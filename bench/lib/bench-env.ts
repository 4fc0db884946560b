import { join } from "node:path";
import { type ScriptedLlm, startScriptedLlm } from "../../scripted-llm/server.js";
import { type AgentProcess, startAgent } from "../../test/helpers/device-agent.js";
import { type LocalWorker, startLocalWorker } from "../../test/helpers/local-worker.js";
import { REPO_ROOT } from "../../test/helpers/processes.js";
import { stopDirectSpawn } from "./direct-spawn.js";
import { type FloorWorker, startFloorWorker } from "./floor-worker.js";
import { type HookServer, startHookServer } from "./hook-server.js";
import { packagedBundles } from "./packaged-bundles.js";

export const BENCH_SKILLS = join(REPO_ROOT, "bench/fixtures/bench-tools");
export const FLEET_SIZE = 20;

/** Device ids the worker accepts: the real agents', and the simulated fleet's. */
export const deviceToken = (agentId: string) => `bench-token-${agentId}`;
const AGENT_IDS = [
  "bench-dev",
  "bench-resume",
  "bench-cost",
  ...Array.from({ length: FLEET_SIZE }, (_, i) => `fleet-${i}`),
];

/**
 * Everything a scenario runs against, started once per run: the scripted model, the product's
 * worker and the floor worker on wrangler's dev server (see below), and one real agent with the
 * bench skills. Scenarios add their own agents or fake devices.
 */
export type BenchEnv = {
  llm: ScriptedLlm;
  /** the far end of the webhook tool `slow_hook` (peer scenario) */
  hook: HookServer;
  worker: LocalWorker;
  floor: FloorWorker;
  agent: AgentProcess;
  quick: boolean;
  /** whether the workers run under `wrangler dev` itself, DevTools inspector attached */
  inspector: boolean;
  /** kill -9 the product's runtime and start it again on the same state and port */
  restartWorker: () => Promise<void>;
  /** start a real agent with the bench skills; stopped with the environment */
  startBenchAgent: (agentId: string, extraArgs?: string[]) => Promise<AgentProcess>;
  stop: () => Promise<void>;
};

export function workerVars(llmUrl: string, hookUrl = "http://127.0.0.1:9/hook"): Record<string, string> {
  return {
    OPENAI_BASE_URL: llmUrl,
    OPENAI_API_KEY: "scripted",
    LLM_MODEL: "scripted",
    LLM_MAX_RETRIES: "5",
    DEVICE_TOKENS: AGENT_IDS.map((id) => `${id}:${deviceToken(id)}`).join(","),
    // 200 sequential rounds are sent as two messages of 100, the most one message may take.
    MAX_ITERATIONS: "100",
    // The front door's limits would throttle the fleet scenario; the bench measures the loop.
    RATE_LIMIT_SENDER_PER_MIN: "1000000",
    RATE_LIMIT_SENDER_BURST: "1000000",
    RATE_LIMIT_AGENT_PER_MIN: "1000000",
    RATE_LIMIT_AGENT_BURST: "1000000",
    MAX_OPEN_CONVERSATIONS_PER_AGENT: "1000000",
    // A tool that runs inside the conversation's object and has a side effect outside it, for the
    // peer scenario's survival runs (the Agents SDK peer has the same tool).
    WEBHOOK_TOOLS: JSON.stringify([
      {
        name: "slow_hook",
        description: "Calls the benchmark's hook and returns its answer.",
        url: hookUrl,
        timeout_secs: 30,
      },
    ]),
    ALLOW_HTTP_WEBHOOK_TOOLS: "true",
  };
}

/**
 * `inspector: false` (the default) runs both workers without the DevTools inspector that `wrangler
 * dev` attaches: it relays every network event to the wrangler process, ~40 ms of CPU per step
 * across two processes, which on a 2-core machine slowed everything it measured (profile-cpu.ts
 * needs it on).
 */
export async function startBenchEnv(quick: boolean, { inspector = false } = {}): Promise<BenchEnv> {
  const llm = await startScriptedLlm({ port: 0 });
  const hook = await startHookServer();
  const agents: AgentProcess[] = [];
  const [workerStart, floorStart] = await Promise.allSettled([
    startLocalWorker({ vars: workerVars(llm.url, hook.url), inspector }),
    startFloorWorker(inspector),
  ]);
  if (workerStart.status === "rejected" || floorStart.status === "rejected") {
    if (workerStart.status === "fulfilled") await workerStart.value.stop();
    if (floorStart.status === "fulfilled") await floorStart.value.stop();
    await llm.close();
    await hook.close();
    throw workerStart.status === "rejected" ? workerStart.reason : (floorStart as PromiseRejectedResult).reason;
  }
  const env: BenchEnv = {
    llm,
    hook,
    worker: workerStart.value,
    floor: floorStart.value,
    agent: null as unknown as AgentProcess,
    quick,
    inspector,
    restartWorker: async () => {
      await env.worker.kill();
      env.worker = await startLocalWorker({
        vars: workerVars(llm.url, hook.url),
        persistDir: env.worker.persistDir,
        port: env.worker.port,
        inspector,
      });
    },
    startBenchAgent: async (agentId, extraArgs = []) => {
      const agent = await startAgent({
        url: env.worker.url,
        agentId,
        token: deviceToken(agentId),
        skills: [BENCH_SKILLS],
        bin: (await packagedBundles()).agent,
        extraArgs,
      });
      agents.push(agent);
      return agent;
    },
    stop: async () => {
      // Agents first (they would only reconnect), then the runtimes, then the model.
      for (const a of agents) await a.stop().catch(() => undefined);
      await env.worker.stop().catch(() => undefined);
      await env.floor.stop().catch(() => undefined);
      await llm.close();
      await hook.close();
      stopDirectSpawn();
    },
  };
  try {
    env.agent = await env.startBenchAgent("bench-dev");
  } catch (e) {
    await env.stop();
    throw e;
  }
  return env;
}
