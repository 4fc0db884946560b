import type { FinishedReply } from "./core/index.js";

/**
 * Callers waiting for a message's reply (`POST /v1/messages?wait=N`), in memory: a wait ends with
 * the reply or at its timeout, and one lost to a restart is a client that asks again. Used by
 * ConversationDO, which resolves them as replies are committed.
 */
export class ReplyWaiters {
  private readonly waiting = new Map<string, Set<(r: FinishedReply) => void>>();

  /** The reply to `messageId` when it is committed, or null after `timeoutMs`. */
  wait(messageId: string, timeoutMs: number): Promise<FinishedReply | null> {
    return new Promise((resolve) => {
      const waiters = this.waiting.get(messageId) ?? new Set();
      const timer = setTimeout(() => {
        waiters.delete(onReply);
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
