import { z } from "zod";
import { parseArgs } from "./args.js";
import { doneError, doneText } from "./outcome.js";
import { ConversationIdArg, isKnownConversation, unknownConversation } from "./session-access.js";
import { type Builtin, SUMMARY_MESSAGES } from "./types.js";

const NAME = "sessions_history";
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = SUMMARY_MESSAGES;
/** One long tool output should not crowd out the rest of the history the model asked for. */
const MAX_MESSAGE_CHARS = 2000;

const Args = z.object({
  conversation_id: ConversationIdArg,
  limit: z.number().int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT),
});

export const sessionsHistory: Builtin = {
  name: NAME,
  description: "The last messages of a conversation this one knows, as text (oldest first).",
  parameters: {
    type: "object",
    properties: {
      conversation_id: { type: "string", description: "A conversation id from sessions_list" },
      limit: {
        type: "integer",
        minimum: 1,
        maximum: MAX_LIMIT,
        default: DEFAULT_LIMIT,
        description: "How many of the latest messages",
      },
    },
    required: ["conversation_id"],
  },
  async run(args, ctx) {
    const parsed = parseArgs(NAME, Args, args);
    if (!parsed.ok) return parsed.result;
    const { conversation_id, limit } = parsed.value;
    if (!isKnownConversation(ctx, conversation_id)) return unknownConversation(NAME, conversation_id, ctx);
    const view = await ctx.conversations.view(conversation_id);
    if (view === null) return doneError(NAME, `conversation "${conversation_id}" does not exist`, "not_found");
    const shown = view.messages.slice(-limit);
    if (shown.length === 0)
      return doneText(NAME, `conversation ${conversation_id} (${view.status}) has no messages yet`);
    const header = `conversation ${conversation_id} (${view.status}), last ${shown.length} of ${view.message_count} messages:`;
    return doneText(NAME, [header, ...shown.map((m) => `[${m.role}] ${messageText(m.content)}`)].join("\n\n"));
  },
};

function messageText(content: string | null): string {
  // Assistant turns that only called tools have no text.
  if (content === null || content === "") return "(no text)";
  if (content.length <= MAX_MESSAGE_CHARS) return content;
  return `${content.slice(0, MAX_MESSAGE_CHARS)}… [${content.length - MAX_MESSAGE_CHARS} more characters]`;
}
