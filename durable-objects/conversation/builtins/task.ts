import { Identifier } from "@edgeloop/protocol";
import { z } from "zod";
import { parseArgs } from "./args.js";
import { doneError } from "./outcome.js";
import type { Builtin } from "./types.js";

const NAME = "task";

const Args = z
  .object({
    prompt: z.string().trim().min(1),
    description: z.string().trim().max(200).optional(),
    agent_id: Identifier.optional(),
    pool: Identifier.optional(),
  })
  .refine((a) => a.agent_id === undefined || a.pool === undefined, {
    message: "give agent_id or pool, not both",
    path: ["pool"],
  });

/**
 * opencode's task: runs a sub-agent in its own conversation and waits for its final reply. The
 * call stays pending; the shell delivers the sub-conversation's reply as this call's result. The
 * sub-agent may run on another device, or over a pool's devices as a fleet (agent A asks agent B).
 */
export const task: Builtin = {
  name: NAME,
  description:
    "Launch a sub-agent in a new conversation to do a self-contained piece of work and wait for its final answer, which becomes this tool's result. Give it everything it needs in the prompt.",
  parameters: {
    type: "object",
    properties: {
      prompt: { type: "string", description: "Full instructions for the sub-agent" },
      description: { type: "string", description: "A short (3-5 word) label for the task" },
      agent_id: {
        type: "string",
        description: "Device to run it on (see agents_list); default this conversation's device",
      },
      pool: {
        type: "string",
        description: "A pool of devices to run it on, all of them at once (instead of agent_id)",
      },
    },
    required: ["prompt"],
  },
  // The sub-conversation runs a whole loop of its own.
  timeout_ms: 600_000,
  async run(args, ctx) {
    const parsed = parseArgs(NAME, Args, args);
    if (!parsed.ok) return parsed.result;
    const { prompt, agent_id, pool } = parsed.value;
    const started = await ctx.startSubtask(prompt, agent_id ?? ctx.agent_id, pool);
    if ("error" in started) return doneError(NAME, started.error, "permission_denied");
    // So sessions_list / sessions_history can look into it while it runs.
    ctx.conversations.remember(started.conversation_id);
    return { kind: "pending" };
  },
};
