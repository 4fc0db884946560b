import { doneJson } from "./outcome.js";
import { knownConversations } from "./session-access.js";
import type { Builtin } from "./types.js";

const NAME = "sessions_list";

/** The conversations this one knows (itself first), with each one's agent, status and length. */
export const sessionsList: Builtin = {
  name: NAME,
  description: "List the conversations (sessions) this one knows: itself and the ones it started, with their status.",
  parameters: { type: "object", properties: {}, required: [] },
  async run(_args, ctx) {
    const sessions = [];
    for (const id of knownConversations(ctx)) {
      const view = await ctx.conversations.view(id);
      sessions.push({
        conversation_id: id,
        agent_id: view?.agent_id ?? null,
        status: view?.status ?? "unknown",
        messages: view?.message_count ?? 0,
        current: id === ctx.conversation_id,
      });
    }
    return doneJson(NAME, sessions);
  },
};
