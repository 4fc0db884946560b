import { statSync } from "node:fs";
import { join } from "node:path";
import { HubConnection } from "@edgeloop/edge-client/hub-connection";
import type { Logger } from "@edgeloop/edge-client/log";
import { HelloFrame, type HubFrame, PROTOCOL_VERSION } from "@edgeloop/protocol/device-frames";
import type { AgentConfig } from "./config.js";
import { Dispatcher } from "./dispatcher.js";
import { ToolExecutor } from "./executor/executor.js";
import type { MqttTransport } from "./mqtt-transport.js";
import { ResultStore } from "./result-store.js";
import { type BwrapStatus, probeBwrap } from "./sandbox/bubblewrap.js";
import { buildDenyRules } from "./sandbox/deny-list.js";
import { type LoadedSkills, loadSkills } from "./skills/load-skills.js";
import { agentVersion } from "./version.js";
import { WorkQueue } from "./work-queue.js";

/** The hub's WebSocket, or the EvoClaw MQTT topics behind the bridge: the rest of the agent is the same. */
export type AgentConnection = HubConnection | MqttTransport;

export type RunningAgent = {
  connection: AgentConnection;
  dispatcher: Dispatcher;
  loaded: LoadedSkills;
  /** stop taking work, let running tools finish (up to the grace), close with 1000 */
  stop(): Promise<void>;
};

export type Prepared = { loaded: LoadedSkills; bwrap: BwrapStatus; warnings: string[] };

/** Skills and sandbox, as both `run` and `doctor` see them. */
export function prepare(config: AgentConfig): Prepared {
  const bwrap: BwrapStatus =
    config.sandboxing === "none" ? { usable: false, reason: "sandboxing = none" } : probeBwrap();
  const loaded = loadSkills(config.skills, {
    capabilities: config.capabilities,
    sandboxing: config.sandboxing,
    bwrapUsable: bwrap.usable,
    toolTimeoutCeilingMs: config.toolTimeoutCeilingMs,
  });
  const warnings: string[] = [];
  const wantBwrap = [...loaded.tools.values()].filter((t) => t.manifest.sandboxing !== "none");
  for (const tool of wantBwrap) {
    if (tool.manifest.sandboxing === "firejail") {
      warnings.push(
        `tool '${tool.manifest.name}' asks for firejail, which this agent does not support: it runs WITHOUT a sandbox`,
      );
    } else if (config.sandboxing === "none") {
      warnings.push(
        `tool '${tool.manifest.name}' asks for bubblewrap, but sandboxing = none: it runs WITHOUT a sandbox`,
      );
    } else if (!bwrap.usable) {
      warnings.push(`tool '${tool.manifest.name}' asks for bubblewrap, but ${bwrap.reason}: it runs WITHOUT a sandbox`);
    }
  }
  return { loaded, bwrap, warnings };
}

export function workspaceProblem(workspace: string): string | null {
  try {
    return statSync(workspace).isDirectory() ? null : `workspace ${workspace} is not a directory`;
  } catch {
    return `workspace ${workspace} does not exist`;
  }
}

export async function startAgent(
  config: AgentConfig,
  log: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningAgent> {
  const { loaded, bwrap, warnings } = prepare(config);
  for (const e of loaded.errors) log.error("skill not loaded", { file: e.file, tool: e.tool, reason: e.reason });
  for (const f of loaded.filtered) log.warn("tool not advertised", { skill: f.skill, tool: f.tool, reason: f.reason });
  for (const w of warnings) log.warn(w);
  log.info("skills loaded", {
    skills: loaded.skills.map((s) => s.name),
    tools: [...loaded.tools.keys()],
    capabilities: loaded.capabilities,
    sandbox: bwrap.usable ? "bubblewrap" : "unavailable",
  });

  const store = await ResultStore.open({
    dir: join(config.stateDir, "results"),
    maxEntries: config.resultMax,
    ttlMs: config.resultTtlMs,
    onWarning: (msg, fields) => log.warn(msg, fields),
  });
  const executor = new ToolExecutor({
    tools: loaded.tools,
    workspace: config.workspace,
    outputCapBytes: config.outputCapBytes,
    killGraceMs: config.killGraceMs,
    sandboxing: config.sandboxing,
    bwrap,
    denyRules: buildDenyRules(config.bashDeny, config.bashDenyDefaults),
    toolEnv: config.toolEnv,
    hiddenPaths: [config.stateDir, ...(config.configFile ? [config.configFile] : [])],
    baseEnv: env,
  });
  let connection: AgentConnection;
  // Device MCP servers' questions reach a person through the hub's socket; MQTT has no frame for them.
  const questions =
    loaded.mcp.length > 0 && config.transport !== "mqtt"
      ? new (await import("./mcp/device-questions.js")).DeviceQuestions((frame) => connection.send(frame), log)
      : null;
  // Only agents with an `[mcp]` skill load the MCP SDK (every tool spawn forks the agent's memory).
  const mcp =
    loaded.mcp.length > 0
      ? new (await import("./mcp/mcp-skills.js")).McpSkills({
          ...(questions ? { questions } : {}),
          loaded,
          workspace: config.workspace,
          sandboxing: config.sandboxing,
          bwrap,
          hiddenPaths: [config.stateDir, ...(config.configFile ? [config.configFile] : [])],
          toolEnv: config.toolEnv,
          baseEnv: env,
          denyRules: buildDenyRules(config.bashDeny, config.bashDenyDefaults),
          outputCapBytes: config.outputCapBytes,
          log,
        })
      : null;
  await mcp?.start();
  const version = agentVersion();
  const dispatcher = new Dispatcher({
    executor: mcp ? mcp.executorOver(executor) : executor,
    store,
    queue: new WorkQueue(config.maxConcurrent),
    send: (frame, json) =>
      connection instanceof HubConnection ? connection.send(frame, json) : connection.send(frame),
    log,
  });
  const link = {
    agentId: config.agentId,
    log,
    hello: () =>
      HelloFrame.parse({
        type: "hello",
        protocol: PROTOCOL_VERSION,
        agent_id: config.agentId,
        version,
        capabilities: loaded.capabilities,
        skills: mcp?.skills() ?? loaded.skills,
        held: dispatcher.held(),
        filtered: mcp?.filtered() ?? loaded.filtered,
      }),
    onOpen: () => {
      for (const result of dispatcher.unackedResults()) connection.send(result);
      questions?.resend();
    },
    onFrame: (frame: HubFrame) => {
      if (frame.type === "ack") dispatcher.onAck(frame.request_ids);
      else if (frame.type === "command" && frame.command === "tool") dispatcher.onCommand(frame);
      else if (frame.type === "command" && frame.command === "cancel") dispatcher.onCancel(frame.request_id);
      else if (frame.type === "elicitation_answer") questions?.onAnswer(frame);
    },
  };
  // Loaded only when used: the mqtt package adds megabytes to the agent's memory, and every tool
  // spawn (a fork) pays for the agent's size.
  connection =
    config.transport === "mqtt" && config.broker
      ? new (await import("./mqtt-transport.js")).MqttTransport({
          ...link,
          broker: config.broker,
          reconnectMs: Math.max(config.reconnectMinMs, 1_000),
        })
      : new HubConnection({
          ...link,
          url: config.url,
          token: config.token,
          heartbeatMs: config.heartbeatMs,
          reconnectMinMs: config.reconnectMinMs,
          reconnectMaxMs: config.reconnectMaxMs,
        });
  connection.start();
  mcp?.onChange(() =>
    connection.send({
      type: "manifest_update",
      capabilities: loaded.capabilities,
      skills: mcp.skills(),
      filtered: mcp.filtered(),
    }),
  );

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      log.info("shutting down", { in_flight: dispatcher.inFlight, grace_ms: config.shutdownGraceMs });
      await dispatcher.shutdown(config.shutdownGraceMs);
      await mcp?.stop();
      await store.flush();
      await connection.close();
      log.info("stopped");
    })());
  return { connection, dispatcher, loaded, stop };
}
