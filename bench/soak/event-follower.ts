/**
 * A conversation's event stream (SSE, `GET /v1/conversations/:id/events`) as a client follows it
 * through runtime restarts: reconnects with `Last-Event-ID`, so it should see every event once and
 * in order. It keeps what it saw by sequence number, so the checks can compare it with the stored
 * stream read again at the end (an event a client saw that the store no longer has was rolled back).
 */
import { API_TOKEN } from "../../test/helpers/local-worker.js";

export type SoakEvent = { seq: number; type: string; at: number } & Record<string, unknown>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Parses SSE frames out of a growing buffer; returns what is left over. */
function takeFrames(buffer: string, onData: (data: string) => void): string {
  let rest = buffer;
  for (;;) {
    const end = rest.indexOf("\n\n");
    if (end < 0) return rest;
    const frame = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const data = frame
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => l.slice(6))
      .join("\n");
    if (data) onData(data);
  }
}

export class EventFollower {
  lastSeq = 0;
  readonly seen = new Map<number, SoakEvent>();
  /** events received again with a sequence number already seen (a resume that repeated) */
  repeats = 0;
  connects = 0;
  private readonly controller = new AbortController();
  private loop: Promise<void> | null = null;

  constructor(
    private readonly url: string,
    private readonly conversationId: string,
    private readonly onEvent: (e: SoakEvent) => void,
  ) {}

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.controller.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    let delay = 250;
    while (!this.controller.signal.aborted) {
      try {
        const res = await fetch(`${this.url}/v1/conversations/${this.conversationId}/events`, {
          headers: {
            authorization: `Bearer ${API_TOKEN}`,
            accept: "text/event-stream",
            ...(this.lastSeq > 0 ? { "last-event-id": String(this.lastSeq) } : {}),
          },
          signal: this.controller.signal,
        });
        if (res.status !== 200 || !res.body) {
          await res.body?.cancel();
        } else {
          this.connects++;
          delay = 250;
          const reader = res.body.getReader();
          const decoder = new TextDecoder();
          let buffer = "";
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer = takeFrames(buffer + decoder.decode(value, { stream: true }), (d) => this.take(d));
          }
        }
      } catch {
        // the runtime went away, or we were stopped
      }
      if (this.controller.signal.aborted) break;
      await sleep(delay);
      delay = Math.min(delay * 2, 2_000);
    }
  }

  private take(data: string): void {
    const e = JSON.parse(data) as SoakEvent;
    if (this.seen.has(e.seq) || e.seq <= this.lastSeq) {
      this.repeats++;
      return;
    }
    this.seen.set(e.seq, e);
    this.lastSeq = e.seq;
    this.onEvent(e);
  }
}

/**
 * Every stored event of a conversation, read from the start until the stream is quiet for `idleMs`
 * (or for a fifth of it once `knownSeq`, the last event a client saw, has been read again).
 */
export async function readAllEvents(
  url: string,
  conversationId: string,
  idleMs = 1_000,
  knownSeq = Number.POSITIVE_INFINITY,
): Promise<SoakEvent[]> {
  const controller = new AbortController();
  const events: SoakEvent[] = [];
  const res = await fetch(`${url}/v1/conversations/${conversationId}/events?after=0`, {
    headers: { authorization: `Bearer ${API_TOKEN}`, accept: "text/event-stream" },
    signal: controller.signal,
  });
  if (res.status !== 200 || !res.body) throw new Error(`events of ${conversationId}: ${res.status}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const idle = new Promise<null>((r) => {
        const caughtUp = (events[events.length - 1]?.seq ?? 0) >= knownSeq;
        timer = setTimeout(() => r(null), caughtUp ? idleMs / 5 : idleMs);
      });
      const next = await Promise.race([reader.read(), idle]);
      clearTimeout(timer);
      if (next === null || next.done) break;
      buffer = takeFrames(buffer + decoder.decode(next.value, { stream: true }), (d) =>
        events.push(JSON.parse(d) as SoakEvent),
      );
    }
  } finally {
    controller.abort();
    await reader.cancel().catch(() => undefined);
  }
  return events;
}
