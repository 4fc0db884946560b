import type { ChatMessage, LoopState } from "./types.js";

/*
 * The part of a conversation's history the loop holds in memory (docs/architecture.md#bounded-memory).
 * Messages are numbered from 0 in the order they were appended, for good: a compaction's `upto`
 * and `pinned`, a `compact` effect's range and the view's pages all use these numbers. Before a
 * compaction `state.messages` is the whole history; once a compaction is in, the messages before
 * its kept part are dropped from memory (they stay in storage) and `state.history` says where
 * `state.messages` starts, keeping the system prompt the model's view still begins with
 * (`HistoryWindow`, types.ts).
 */

type Held = Pick<LoopState, "messages" | "history">;

/** The number of `state.messages[0]`. */
export function windowStart(state: Held): number {
  return state.history?.from ?? 0;
}

/** How many messages the conversation has had, the ones only in storage included. */
export function historyLength(state: Held): number {
  return windowStart(state) + state.messages.length;
}

/** Message `n`, if memory still holds it (the system prompt always is). */
export function messageAt(state: Held, n: number): ChatMessage | undefined {
  const from = windowStart(state);
  if (n >= from) return state.messages[n - from];
  return n === 0 ? (state.history?.system ?? undefined) : undefined;
}

/** The system prompt the history starts with, or null. */
export function systemMessage(state: Held): ChatMessage | null {
  const first = messageAt(state, 0);
  return first?.role === "system" ? first : null;
}

/**
 * Drops the messages before `n` from memory (a compaction summarized them). They must already be
 * stored: the shell writes a step's messages in its own commit, and a compaction only summarizes
 * messages of earlier steps.
 */
export function dropBefore(state: LoopState, n: number): void {
  const from = windowStart(state);
  if (n <= from) return;
  const system = systemMessage(state);
  state.messages = state.messages.slice(n - from);
  state.history = { from: n, system };
}
