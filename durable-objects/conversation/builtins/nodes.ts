import { Identifier } from "@edgeloop/protocol";
import { z } from "zod";
import { isoOrNull } from "./agents-list.js";
import { parseArgs } from "./args.js";
import { doneError, doneJson } from "./outcome.js";
import type { Builtin } from "./types.js";

const NAME = "nodes";

const Args = z.object({ agent_id: Identifier.optional() });

/** One device in detail: online state, version, last seen, capabilities, skills and their tools. */
export const nodes: Builtin = {
  name: NAME,
  description:
    "Details of one device (node): online, version, last seen, capabilities, skills and tools. Default: this conversation's device.",
  parameters: {
    type: "object",
    properties: {
      agent_id: { type: "string", description: "Device id (see agents_list); default this conversation's device" },
    },
    required: [],
  },
  async run(args, ctx) {
    const parsed = parseArgs(NAME, Args, args);
    if (!parsed.ok) return parsed.result;
    const agentId = parsed.value.agent_id ?? ctx.agent_id;
    // The registry is the source of truth for which devices exist; asking a hub for an unknown id
    // would create an empty one rather than fail.
    if (agentId !== ctx.agent_id) {
      const known = await ctx.devices.list();
      if (!known.some((d) => d.agent_id === agentId)) {
        return doneError(
          NAME,
          `no device "${agentId}"; known: ${known.map((d) => d.agent_id).join(", ") || "(none)"}`,
          "not_found",
        );
      }
    }
    const device = await ctx.devices.get(agentId);
    return doneJson(NAME, {
      agent_id: agentId,
      online: device.online === true,
      version: typeof device.version === "string" ? device.version : null,
      last_seen: isoOrNull(typeof device.last_seen === "number" ? device.last_seen : null),
      capabilities: Array.isArray(device.capabilities) ? device.capabilities.filter((c) => typeof c === "string") : [],
      skills: device.skills.map((s) => ({
        name: s.name,
        has_workflow: typeof s.workflow === "string" && s.workflow.trim() !== "",
        tools: s.tools.map((t) => t.name),
      })),
    });
  },
};
