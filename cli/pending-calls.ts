import type { ApiClient } from "./api-client.js";
import { ConversationList, ConversationView } from "./api-schemas.js";

export type PendingCall = {
  conversation_id: string;
  agent_id: string;
  id: string;
  name: string;
  state: string;
  args: unknown;
};

/**
 * Calls waiting for a person (approval or answer). There is no global list on the server: read the
 * running conversations from the index, then each one's pending calls.
 */
export async function pendingCalls(client: ApiClient, limit = 100): Promise<PendingCall[]> {
  const { conversations } = await client.json(ConversationList, `/v1/conversations?status=running&limit=${limit}`, {
    auth: "api",
  });
  const views = await Promise.all(
    conversations.map((c) =>
      client
        .json(ConversationView, `/v1/conversations/${encodeURIComponent(c.conversation_id)}`, { auth: "api" })
        .catch(() => null),
    ),
  );
  return views.flatMap((v) =>
    v === null
      ? []
      : v.pending_tool_calls
          .filter((p) => p.state === "awaiting_approval" || p.state === "awaiting_answer")
          .map((p) => ({
            conversation_id: v.conversation_id,
            agent_id: v.agent_id,
            id: p.id,
            name: p.name,
            state: p.state,
            args: p.args,
          })),
  );
}
