import { type SkillManifest, type ToolSpec, toolSpecsFromSkills } from "@edgeloop/protocol";
import { fleetToolName } from "@edgeloop/protocol/fleet-tool-names";
import { ToolName } from "@edgeloop/protocol/ids";

/** A device of a fleet conversation, as its hub describes it (known while it is offline too). */
export type FleetDevice = { agent_id: string; skills: SkillManifest[] };

/**
 * The device tools a fleet conversation offers the model (docs/fleet.md#tool-names), pure:
 *
 * - every device's tool as `{agent_id}__{tool}` (the fleet MCP server's naming), which runs on that
 *   device only, so two devices' tools never share a name;
 * - a tool that two or more devices offer with the same parameters, also under its own name
 *   (`bash`): edgeloop runs it on whichever of them is online and least busy when it is called.
 *   Where the devices' parameters differ there is no such name: the model has to choose.
 *
 * A device whose id cannot make a tool name the model accepts (`.` or `:` in it, too long, `__`)
 * only takes part through device-less names. Each spec keeps the devices' own tool name in
 * `fleet.tool`, which policies, hooks and approval rules are keyed by.
 */
export function fleetToolSpecs(devices: readonly FleetDevice[]): ToolSpec[] {
  const named: ToolSpec[] = [];
  const byTool = new Map<string, { agent_id: string; spec: ToolSpec }[]>();
  for (const device of devices) {
    for (const spec of toolSpecsFromSkills(device.skills)) {
      const offers = byTool.get(spec.name) ?? [];
      offers.push({ agent_id: device.agent_id, spec });
      byTool.set(spec.name, offers);
      const name = modelToolName(device.agent_id, spec.name);
      if (!name) continue;
      named.push({
        ...spec,
        name,
        description: `${spec.description} (runs on device ${device.agent_id})`,
        fleet: { tool: spec.name, agents: [device.agent_id] },
      });
    }
  }
  const shared: ToolSpec[] = [];
  for (const [tool, offers] of byTool) {
    if (offers.length < 2 || !sameParameters(offers.map((o) => o.spec))) continue;
    const agents = offers.map((o) => o.agent_id);
    const first = offers[0]!.spec;
    // Every device must accept the timeout the model may ask for.
    const max_timeout_ms = Math.min(...offers.map((o) => o.spec.max_timeout_ms));
    shared.push({
      ...first,
      timeout_ms: Math.min(first.timeout_ms, max_timeout_ms),
      max_timeout_ms,
      description:
        `${first.description} (edgeloop runs it on whichever of ${agents.join(", ")} is online and least busy; ` +
        `call {device}__${tool} to choose the device)`,
      fleet: { tool, agents },
    });
  }
  return [...shared, ...named];
}

/** `{agent_id}__{tool}` when the model accepts it as a tool name, else null. */
export function modelToolName(agentId: string, tool: string): string | null {
  const name = fleetToolName(agentId, tool);
  return name !== null && ToolName.safeParse(name).success ? name : null;
}

function sameParameters(specs: readonly ToolSpec[]): boolean {
  const first = JSON.stringify(specs[0]!.parameters);
  return specs.every((s) => JSON.stringify(s.parameters) === first);
}
