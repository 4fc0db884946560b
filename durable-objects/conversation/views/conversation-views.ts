import type { WaitReply } from "@edgeloop/protocol";
import { DEFAULT_HISTORY_PAGE, type HistoryPageQuery } from "@edgeloop/protocol/history-page";
import type { ConversationView } from "../conversation-rpc.js";
import { type FinishedReply, type LoopState, ruleTargetOf } from "../core/index.js";

import type { ConversationStore } from "../storage/conversation-store.js";
import { historyPage } from "./history-page.js";

/**
 * What `GET /v1/conversations/:id` shows: a page of the history (`page`, protocol/history-page.ts),
 * replies, the calls still open and the compactions.
 */
export function conversationView(
  s: LoopState,
  store: ConversationStore,
  page: Partial<HistoryPageQuery>,
  /** remote MCP servers' questions waiting, by call id (mcp/server-questions.ts) */
  serverQuestions: Record<string, { question: string; options: string[] }> = {},
): ConversationView {
  return {
    conversation_id: s.conversation_id,
    agent_id: s.agent_id,
    status: s.status,
    ...historyPage(s, store, { limit: DEFAULT_HISTORY_PAGE, ...page }),
    replies: s.replies,
    pending_tool_calls: (s.run?.round ?? [])
      .filter((c) => c.state !== "done")
      .map((c) => ({
        id: c.id,
        name: c.name,
        state:
          (c.kind === "question" || c.id in serverQuestions) && c.state === "dispatched" ? "awaiting_answer" : c.state,
        args: c.args,
        // A server's question during the call: what the person is asked.
        ...(c.id in serverQuestions ? serverQuestions[c.id] : {}),
        // A fleet's call: the device and tool name a remembered decision on it is kept for (docs/fleet.md).
        ...(s.tools.some((t) => t.name === c.name && t.fleet) ? { rule_target: ruleTargetOf(s, c.name) } : {}),
      })),
    queued_messages: s.queue.length,
    compactions: store.compactions(),
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

/**
 * Callers waiting for a message's reply (`POST /v1/messages?wait=N`), in memory: a wait ends with
 * the reply or at its timeout, and one lost to a restart is a client that asks again. The object
 * resolves them as replies are committed.
 */
export class ReplyWaiters {
  private readonly waiting = new Map<string, Set<(r: FinishedReply) => void>>();

  /** The reply to `messageId` when it is committed, or null after `timeoutMs`. */
  wait(messageId: string, timeoutMs: number): Promise<FinishedReply | null> {
    return new Promise((resolve) => {
      const waiters = this.waiting.get(messageId) ?? new Set();
      const timer = setTimeout(() => {
        waiters.delete(onReply);
        if (waiters.size === 0 && this.waiting.get(messageId) === waiters) this.waiting.delete(messageId);
        resolve(null);
      }, timeoutMs);
      const onReply = (r: FinishedReply) => {
        clearTimeout(timer);
        resolve(r);
      };
      waiters.add(onReply);
      this.waiting.set(messageId, waiters);
    });
  }

  resolve(reply: FinishedReply): void {
    const waiters = this.waiting.get(reply.message_id);
    if (!waiters) return;
    this.waiting.delete(reply.message_id);
    for (const w of waiters) w(reply);
  }
}
