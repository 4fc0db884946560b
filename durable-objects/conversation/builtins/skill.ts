import { z } from "zod";
import { parseArgs } from "./args.js";
import { doneError, doneText } from "./outcome.js";
import type { Builtin } from "./types.js";

const NAME = "skill";

const Args = z.object({ name: z.string().trim().min(1) });

/**
 * Loads a skill's workflow: the instructions its manifest carries for how to use its tools
 * together. Only this conversation's device: those are the tools the model can call.
 */
export const skill: Builtin = {
  name: NAME,
  description: "Load the workflow (usage instructions) of a skill installed on this conversation's device.",
  parameters: {
    type: "object",
    properties: { name: { type: "string", description: "Skill name, e.g. desktop-tools" } },
    required: ["name"],
  },
  async run(args, ctx) {
    const parsed = parseArgs(NAME, Args, args);
    if (!parsed.ok) return parsed.result;
    const wanted = parsed.value.name;
    const device = await ctx.devices.get(ctx.agent_id);
    const names = device.skills.map((s) => s.name);
    const found = device.skills.find((s) => s.name === wanted);
    if (found === undefined) {
      return doneError(
        NAME,
        `no skill "${wanted}" on device ${ctx.agent_id}; skills: ${names.join(", ") || "(none)"}`,
        "not_found",
      );
    }
    const workflow = found.workflow?.trim() ?? "";
    if (workflow === "") {
      const tools = found.tools.map((t) => t.name).join(", ") || "(none)";
      return doneError(
        NAME,
        `skill "${wanted}" has no workflow; its tools can be called directly: ${tools}`,
        "not_found",
      );
    }
    return doneText(NAME, `# Skill: ${found.name}\n\n${workflow}`);
  },
};
