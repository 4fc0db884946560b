import { Identifier } from "@edgeloop/protocol";
import { z } from "zod";
import { parseArgs } from "./args.js";
import { doneError, doneJson } from "./outcome.js";
import type { Builtin } from "./types.js";

const NAME = "sessions_spawn";

const Args = z.object({ text: z.string().trim().min(1), agent_id: Identifier.optional() });

/**
 * Starts a new conversation with a first message and returns at once (unlike `task`, which waits
 * for the sub-conversation's reply). The new id is remembered so the sessions_* tools may reach it.
 */
export const sessionsSpawn: Builtin = {
  name: NAME,
  description:
    "Start a new conversation (a sub-agent session) with a first message, on this device or another agent. Returns its conversation_id at once; follow it with session_status and sessions_history.",
  parameters: {
    type: "object",
    properties: {
      text: { type: "string", description: "The first message for the new conversation" },
      agent_id: {
        type: "string",
        description: "Device to run it on (see agents_list); default this conversation's device",
      },
    },
    required: ["text"],
  },
  async run(args, ctx) {
    const parsed = parseArgs(NAME, Args, args);
    if (!parsed.ok) return parsed.result;
    const agentId = parsed.value.agent_id ?? ctx.agent_id;
    const posted = await ctx.conversations.post(null, agentId, parsed.value.text);
    if ("error" in posted) return doneError(NAME, `could not start a conversation on "${agentId}": ${posted.error}`);
    ctx.conversations.remember(posted.conversation_id);
    return doneJson(NAME, {
      conversation_id: posted.conversation_id,
      message_id: posted.message_id,
      agent_id: agentId,
    });
  },
};
