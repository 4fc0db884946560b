import { z } from "zod";
import { parseArgs } from "./args.js";
import { doneError, doneJson } from "./outcome.js";
import { ConversationIdArg, isKnownConversation, unknownConversation } from "./session-access.js";
import type { Builtin } from "./types.js";

const NAME = "session_status";

const Args = z.object({ conversation_id: ConversationIdArg });

export const sessionStatus: Builtin = {
  name: NAME,
  description: "The status of a conversation this one knows (e.g. running, idle), with its agent and message count.",
  parameters: {
    type: "object",
    properties: { conversation_id: { type: "string", description: "A conversation id from sessions_list" } },
    required: ["conversation_id"],
  },
  async run(args, ctx) {
    const parsed = parseArgs(NAME, Args, args);
    if (!parsed.ok) return parsed.result;
    const { conversation_id } = parsed.value;
    if (!isKnownConversation(ctx, conversation_id)) return unknownConversation(NAME, conversation_id, ctx);
    const view = await ctx.conversations.view(conversation_id);
    if (view === null) return doneError(NAME, `conversation "${conversation_id}" does not exist`, "not_found");
    const last = view.messages.at(-1);
    return doneJson(NAME, {
      conversation_id,
      agent_id: view.agent_id,
      status: view.status,
      messages: view.message_count,
      last_message_role: last?.role ?? null,
    });
  },
};
