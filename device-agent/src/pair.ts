import { hostname } from "node:os";
import { openPairing, type PairedDevice, waitForApproval } from "@edgeloop/edge-client/pairing-client";
import type { AgentConfig } from "./config.js";
import { saveAgentSettings } from "./settings-file.js";
import { agentVersion } from "./version.js";

/**
 * `edgeloop-agent pair <worker URL>`: ask the worker to pair this device, show the code and what
 * the admin runs, wait for the decision, and keep the device's own token in the settings file
 * (settings-file.ts). Returns the config to run with: the id the admin approved, the new token.
 */
export async function pairAgent(
  config: AgentConfig,
  print: (line: string) => void,
  signal?: AbortSignal,
): Promise<AgentConfig> {
  const file = config.configFile!;
  const opened = await openPairing(config.url, {
    agent_id: config.agentId,
    kind: "agent",
    label: `edgeloop-agent ${agentVersion()} on ${hostname()}`,
  });
  print(`Pairing code: ${opened.code}  (device id asked for: ${config.agentId})`);
  print(`An admin approves it with:  npx edgeloop devices approve ${opened.code}`);
  print(`or on the dashboard (Waiting to pair). The code expires at ${new Date(opened.expires_at).toISOString()}.`);
  print("Waiting for approval…");
  const paired: PairedDevice = await waitForApproval(config.url, opened, {
    ...(signal ? { signal } : {}),
    onNetworkError: (e) => print(`cannot reach the worker (${e.message}); still waiting`),
  });
  saveAgentSettings(file, { url: config.url, id: paired.agent_id, token: paired.token });
  print(`Approved as ${paired.agent_id} (token ${paired.token_id}), saved to ${file} (owner-only).`);
  print(`From now on start the agent with:  edgeloop-agent --config ${file}`);
  return { ...config, agentId: paired.agent_id, token: paired.token };
}
