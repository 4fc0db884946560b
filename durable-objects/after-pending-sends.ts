/**
 * Resolves after the runtime has had a turn of its event loop, in which it writes the WebSocket
 * frames and requests queued so far: a write made after this no longer holds back what was sent
 * before it (docs/architecture.md#output-gates).
 */
export function afterPendingSends(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
