/**
 * How device tools are named where one list holds several devices (the fleet's MCP server, a
 * fleet conversation): `{agent_id}__{tool}` (e.g. `pi-1__bash`). A name is split at its first
 * `__`, so an agent id that contains `__` or ends in `_` would be ambiguous: such devices are left
 * out of the fleet's tool list. Pure.
 */
export const FLEET_SEPARATOR = "__";
/** The longest tool name MCP recommends. */
const MAX_NAME = 128;

export function fleetToolName(agentId: string, tool: string): string | null {
  if (!exposable(agentId)) return null;
  const name = `${agentId}${FLEET_SEPARATOR}${tool}`;
  return name.length <= MAX_NAME ? name : null;
}

export function parseFleetToolName(name: string): { agent_id: string; tool: string } | null {
  const at = name.indexOf(FLEET_SEPARATOR);
  if (at <= 0) return null;
  const agent_id = name.slice(0, at);
  const tool = name.slice(at + FLEET_SEPARATOR.length);
  return tool && exposable(agent_id) ? { agent_id, tool } : null;
}

export const exposable = (agentId: string) => !agentId.includes(FLEET_SEPARATOR) && !agentId.endsWith("_");
