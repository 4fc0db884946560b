/**
 * Resolves after the runtime has had a turn of its event loop, in which it writes the WebSocket
 * frames and requests queued so far. An object's output gate holds every message it sends while
 * one of its writes is pending, until the write is durable: a write made after this no longer holds
 * back what was sent before it. (Locally that wait is a disk flush on the one thread all objects
 * share; in production, a replication round trip.)
 */
export function afterPendingSends(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
