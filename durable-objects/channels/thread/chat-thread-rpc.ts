import type { RunOutput } from "@edgeloop/protocol/run-output";
import type { InboundEvent } from "../platform.js";
import type { ThreadIdentity } from "./thread-store.js";

/** What the worker and the conversations call on a chat thread's object. */
export interface ChatThreadRpc {
  /**
   * A verified inbound event: stored (once per platform event id) and handled after the call
   * returns, so the webhook answers within the platform's deadline. False: seen before.
   */
  receive(identity: ThreadIdentity, event: InboundEvent): Promise<{ taken: boolean }>;
  /**
   * A run's output, pushed by its conversation's outbox (conversation/effects/chat-delivery.ts):
   * events since the last push, coalesced, and the reply when it has ended. Taken once by event
   * sequence number and reply message id, so a push sent again changes nothing.
   */
  runOutput(conversationId: string, outputs: RunOutput[]): Promise<void>;
  /** A line from edgeloop to the chat (a pairing approved). */
  notify(identity: ThreadIdentity, key: string, text: string): Promise<void>;
}
