import { type HistoryPageQuery, historyPageRange } from "@edgeloop/protocol/history-page";
import { type ChatMessage, historyLength, type LoopState, windowStart } from "../core/index.js";
import type { ConversationStore } from "../storage/conversation-store.js";

export type HistoryPage = { messages: ChatMessage[]; messages_from: number; messages_total: number };

/**
 * One page of the history: what memory holds comes from memory, what is older from storage
 * (docs/architecture.md#bounded-memory). Called after the waiting step is written, so the two meet.
 */
export function historyPage(state: LoopState, store: ConversationStore, query: HistoryPageQuery): HistoryPage {
  const total = historyLength(state);
  const { from, to } = historyPageRange(query, total);
  const start = windowStart(state);
  const stored = from < start ? store.messages(from, Math.min(to, start)) : [];
  const held = to > start ? state.messages.slice(Math.max(from, start) - start, to - start) : [];
  return { messages: [...stored, ...held], messages_from: from, messages_total: total };
}
