import { API_TOKEN } from "../../test/helpers/local-worker.js";

export type TimedEvent = { seq: number; at: number; type: string };

/**
 * The conversation's stored events from its SSE endpoint (`?after=0`): reads until `idleMs` pass
 * without a new frame, then hangs up (the stream itself stays open for live events).
 */
export async function storedEvents(workerUrl: string, conversationId: string, idleMs = 300): Promise<TimedEvent[]> {
  const abort = new AbortController();
  const res = await fetch(`${workerUrl}/v1/conversations/${conversationId}/events?after=0`, {
    headers: { authorization: `Bearer ${API_TOKEN}` },
    signal: abort.signal,
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), idleMs);
    });
    const chunk = await Promise.race([reader.read(), idle]);
    clearTimeout(timer);
    if (chunk === null || chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  abort.abort();
  return text
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)) as TimedEvent);
}
