import type { ConversationEvent } from "@edgeloop/protocol";
import { problemResponse } from "../../../runtime/problem.js";
import type { ConversationStore } from "../storage/conversation-store.js";

/** Stored events are read back in pages of this many. */
const PAGE = 500;
const KEEP_ALIVE_MS = 15_000;

/**
 * The conversation's Server-Sent Events (`GET /v1/conversations/:id/events`, forwarded to the
 * object's `fetch`): every stored event after `Last-Event-ID` (or `?after=`), then live ones as the
 * conversation commits them, each with its sequence number as the SSE id, so a reconnect resumes
 * without gaps or repeats. The object calls `broadcast` after each commit.
 */
export class EventStream {
  private readonly clients = new Set<WritableStreamDefaultWriter<Uint8Array>>();

  constructor(private readonly store: ConversationStore) {}

  serve(request: Request, conversationExists: boolean): Response {
    const url = new URL(request.url);
    if (!url.pathname.endsWith("/events")) return new Response("not found", { status: 404 });
    if (!conversationExists) return problemResponse(404, "Not found");
    const after = Number(request.headers.get("last-event-id") ?? url.searchParams.get("after") ?? "0");
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const encoder = new TextEncoder();
    let last = Number.isFinite(after) && after >= 0 ? Math.floor(after) : 0;
    for (;;) {
      const batch = this.store.events(last, PAGE);
      // A client that goes away at once rejects these writes: nothing to do about it but not let it throw.
      for (const e of batch) writer.write(encoder.encode(sseFrame(e))).catch(() => undefined);
      if (batch.length < PAGE) break;
      last = batch[batch.length - 1]!.seq;
    }
    this.clients.add(writer);
    const keepAlive = setInterval(() => {
      writer.write(encoder.encode(": keep-alive\n\n")).catch(() => undefined);
    }, KEEP_ALIVE_MS);
    void writer.closed
      .catch(() => undefined)
      .finally(() => {
        clearInterval(keepAlive);
        this.clients.delete(writer);
      });
    request.signal?.addEventListener("abort", () => {
      clearInterval(keepAlive);
      this.clients.delete(writer);
      writer.close().catch(() => undefined);
    });
    return new Response(readable, {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" },
    });
  }

  /** Send newly stored events to every open stream. */
  broadcast(events: ConversationEvent[]): void {
    if (this.clients.size === 0 || events.length === 0) return;
    const bytes = new TextEncoder().encode(events.map(sseFrame).join(""));
    for (const writer of this.clients) {
      writer.write(bytes).catch(() => this.clients.delete(writer));
    }
  }
}

function sseFrame(e: ConversationEvent): string {
  return `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
}
