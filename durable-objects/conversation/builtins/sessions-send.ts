import { z } from "zod";
import { parseArgs } from "./args.js";
import { doneError, doneJson } from "./outcome.js";
import { ConversationIdArg, isKnownConversation, unknownConversation } from "./session-access.js";
import type { Builtin } from "./types.js";

const NAME = "sessions_send";

const Args = z.object({ conversation_id: ConversationIdArg, text: z.string().trim().min(1) });

/** Posts a user message into a conversation this one started; does not wait for its reply. */
export const sessionsSend: Builtin = {
  name: NAME,
  description:
    "Send a message to another conversation this one started (see sessions_list). Does not wait for the reply; read it later with sessions_history.",
  parameters: {
    type: "object",
    properties: {
      conversation_id: { type: "string", description: "A conversation id from sessions_list" },
      text: { type: "string", description: "The message" },
    },
    required: ["conversation_id", "text"],
  },
  async run(args, ctx) {
    const parsed = parseArgs(NAME, Args, args);
    if (!parsed.ok) return parsed.result;
    const { conversation_id, text } = parsed.value;
    // A message to itself would only queue behind the run that is sending it.
    if (conversation_id === ctx.conversation_id) {
      return doneError(NAME, "cannot send to the current conversation; answer directly instead", "invalid_params");
    }
    if (!isKnownConversation(ctx, conversation_id)) return unknownConversation(NAME, conversation_id, ctx);
    const view = await ctx.conversations.view(conversation_id);
    if (view === null) return doneError(NAME, `conversation "${conversation_id}" does not exist`, "not_found");
    const posted = await ctx.conversations.post(conversation_id, view.agent_id, text);
    if ("error" in posted) return doneError(NAME, `could not send: ${posted.error}`);
    return doneJson(NAME, { conversation_id: posted.conversation_id, message_id: posted.message_id });
  },
};
