import type { WaitReply } from "@edgeloop/protocol";
import type { ConversationView } from "./conversation-rpc.js";
import type { FinishedReply, LoopState } from "./core/index.js";

/** What `GET /v1/conversations/:id` shows: the history, replies and the calls still open. */
export function conversationView(s: LoopState): ConversationView {
  return {
    conversation_id: s.conversation_id,
    agent_id: s.agent_id,
    status: s.status,
    messages: s.messages,
    replies: s.replies,
    pending_tool_calls: (s.run?.round ?? [])
      .filter((c) => c.state !== "done")
      .map((c) => ({
        id: c.id,
        name: c.name,
        state: c.kind === "question" && c.state === "dispatched" ? "awaiting_answer" : c.state,
        args: c.args,
      })),
    queued_messages: s.queue.length,
  };
}

/** What a waiting caller is told: the reply, or how far the run has got. */
export function waitReplyView(state: LoopState, messageId: string, reply: FinishedReply | null): WaitReply {
  if (reply) {
    return {
      conversation_id: state.conversation_id,
      message_id: messageId,
      status: reply.status,
      reply: reply.reply,
      tool_calls: reply.tool_calls,
      iterations: reply.iterations,
      stop_reason: reply.stop_reason,
    };
  }
  const running = state.run?.message_id === messageId ? state.run : null;
  return {
    conversation_id: state.conversation_id,
    message_id: messageId,
    status: "running",
    reply: null,
    tool_calls: running?.tool_calls ?? [],
    iterations: running?.iteration ?? 0,
    stop_reason: null,
  };
}
