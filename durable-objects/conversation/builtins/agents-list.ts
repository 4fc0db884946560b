import { doneJson } from "./outcome.js";
import type { Builtin } from "./types.js";

const NAME = "agents_list";

/** The devices the deployment knows, with online state and the tools each advertises. */
export const agentsList: Builtin = {
  name: NAME,
  description: "List the agents (devices) this deployment knows: online or not, version, last seen, and their tools.",
  parameters: { type: "object", properties: {}, required: [] },
  async run(_args, ctx) {
    const devices = await ctx.devices.list();
    return doneJson(
      NAME,
      devices.map((d) => ({
        agent_id: d.agent_id,
        online: d.online,
        current: d.agent_id === ctx.agent_id,
        version: d.version,
        last_seen: isoOrNull(d.last_seen),
        tools: d.tools,
      })),
    );
  },
};

/** Epoch milliseconds as ISO text: a model reads dates, not 13-digit numbers. */
export function isoOrNull(ms: number | null | undefined): string | null {
  return typeof ms === "number" && Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}
