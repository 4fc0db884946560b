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
  /** A run's reply, from the conversation's outbox; `key` is stable across its retries. */
  deliverReply(key: string, payload: RunOutput): Promise<void>;
  /** A line from edgeloop to the chat (a pairing approved). */
  notify(identity: ThreadIdentity, key: string, text: string): Promise<void>;
}
