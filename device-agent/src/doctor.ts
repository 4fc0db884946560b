import { connectUrl } from "@edgeloop/edge-client/hub-connection";
import { brokerOptions, redactUrl } from "@edgeloop/edge-client/mqtt-options";
import WebSocket from "ws";
import { prepare, workspaceProblem } from "./agent.js";
import type { AgentConfig } from "./config.js";
import { riskyWorkspace } from "./default-dirs.js";

export type ReachCheck = { ok: true } | { ok: false; reason: string };

/**
 * Opens the device socket with the token and closes it again at once (1000, no hello). Note: the
 * hub holds one socket per device, so a running agent with the same id may be bumped and reconnect.
 */
export function checkServer(config: AgentConfig, timeoutMs = 10_000): Promise<ReachCheck> {
  return new Promise((resolve) => {
    const ws = new WebSocket(connectUrl(config.url, config.agentId), {
      headers: { Authorization: `Bearer ${config.token}` },
      handshakeTimeout: timeoutMs,
    });
    let done = false;
    const finish = (r: ReachCheck) => {
      if (done) return;
      done = true;
      resolve(r);
    };
    ws.on("unexpected-response", (_req, res) => {
      const status = res.statusCode ?? 0;
      finish({
        ok: false,
        reason: status === 401 || status === 403 ? `token refused (HTTP ${status})` : `HTTP ${status}`,
      });
      ws.terminate();
    });
    ws.on("open", () => {
      finish({ ok: true });
      ws.close(1000, "doctor");
    });
    ws.on("close", (code) => finish({ ok: false, reason: `closed before opening (code ${code})` }));
    ws.on("error", (err) => finish({ ok: false, reason: err.message }));
  });
}

/** With the MQTT transport the agent talks to a broker, not the hub: check that it lets us in. */
export async function checkBroker(config: AgentConfig, timeoutMs = 10_000): Promise<ReachCheck> {
  if (!config.broker) return { ok: false, reason: "no broker configured" };
  const options = brokerOptions(config.broker, {
    clientId: `edgeloop-doctor-${config.agentId}-${process.pid}`,
    reconnectPeriod: 0,
    connectTimeout: timeoutMs,
  });
  if (!options.ok) return { ok: false, reason: options.error };
  const { connectAsync } = await import("mqtt");
  try {
    const client = await connectAsync(config.broker.url, options.value);
    await client.endAsync(true);
    return { ok: true };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
}

/** Prints a human report; true only if everything needed to serve tools is in place. */
export async function runDoctor(config: AgentConfig, print: (line: string) => void = console.log): Promise<boolean> {
  let good = true;
  const problem = (line: string) => {
    good = false;
    print(`  FAIL ${line}`);
  };
  const ok = (line: string) => print(`  ok   ${line}`);
  const note = (line: string) => print(`  note ${line}`);

  print(`edgeloop-agent doctor (agent ${config.agentId})`);
  print("workspace");
  const ws = workspaceProblem(config.workspace);
  const risky = ws ? null : riskyWorkspace(config.workspace);
  if (ws) problem(ws);
  else if (risky) print(`  WARN ${risky}`);
  else ok(config.workspace);

  const { loaded, bwrap, warnings } = prepare(config);
  print("skills");
  for (const skill of loaded.skills)
    ok(`${skill.name} ${skill.version}: ${skill.tools.map((t) => t.name).join(", ") || "(no tools advertised)"}`);
  for (const e of loaded.errors) problem(`${e.file}${e.tool ? ` tool ${e.tool}` : ""}: ${e.reason}`);
  // Not started here: an MCP server's tools are known once the agent runs it.
  for (const m of loaded.mcp)
    ok(`${m.skill}: MCP server \`${m.section.command.join(" ")}\` (its tools are listed at start)`);
  if (loaded.tools.size === 0 && loaded.mcp.length === 0) problem("no tools would be advertised");
  print("filtered tools");
  if (loaded.filtered.length === 0) ok("none");
  for (const f of loaded.filtered) {
    // Filtering by capability is a choice the operator made; a missing binary is not.
    const line = `${f.skill}/${f.tool}: ${f.reason}`;
    if (f.kind === "capability" || f.kind === "duplicate") note(line);
    else problem(line);
  }
  print(
    `capabilities: ${loaded.capabilities.join(", ") || "(none)"}${config.capabilities === null ? " (unrestricted: every permission the tools use)" : ""}`,
  );
  print("sandbox");
  if (bwrap.usable) ok(`bubblewrap at ${bwrap.path}`);
  else note(`bubblewrap unavailable: ${bwrap.reason}`);
  for (const w of warnings) problem(w);

  if (config.transport === "mqtt" && config.broker) {
    print("broker");
    const reach = await checkBroker(config);
    const where = redactUrl(config.broker.url);
    if (reach.ok) ok(`${where} accepted the connection`);
    else problem(`${where}: ${reach.reason}`);
    print(good ? "all good" : "problems found");
    return good;
  }
  print("server");
  const reach = await checkServer(config);
  if (reach.ok) ok(`${connectUrl(config.url, config.agentId)} accepted the token`);
  else problem(`${connectUrl(config.url, config.agentId)}: ${reach.reason}`);
  print(good ? "all good" : "problems found");
  return good;
}
