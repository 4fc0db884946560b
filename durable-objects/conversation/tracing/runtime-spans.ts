import * as workers from "cloudflare:workers";
import type { SpanAttributes, SpanRecord } from "./run-spans.js";

/**
 * The thin side of tracing: hands the spans run-spans.ts worked out to the Workers runtime's custom
 * spans (`tracing` from `cloudflare:workers`, exported when `[observability.traces]` is on), and
 * does nothing where the runtime has no such API (older workerd, tests). A span is recorded in the
 * request that ends it; its real start, duration and parent in the run's trace are attributes.
 */
type RuntimeSpan = { setAttribute(key: string, value?: string | number | boolean): void };
type RuntimeTracing = {
  enterSpan<T>(name: string, callback: (span: RuntimeSpan) => T): T;
  getActiveSpan?: () => { spanContext?: () => { traceId?: string } } | undefined;
};

function runtimeTracing(): RuntimeTracing | null {
  const tracing = (workers as unknown as { tracing?: RuntimeTracing }).tracing;
  return tracing && typeof tracing.enterSpan === "function" ? tracing : null;
}

export function recordSpans(spans: SpanRecord[]): void {
  const tracing = runtimeTracing();
  if (!tracing) return;
  for (const s of spans) tracing.enterSpan(s.name, (span) => setAll(span, s.attributes));
}

/** Work done now under a span of its own (a reply delivery): real duration, nested under the request. */
export function withSpan<T>(name: string, attributes: SpanAttributes, work: () => Promise<T>): Promise<T> {
  const tracing = runtimeTracing();
  if (!tracing) return work();
  return tracing.enterSpan(name, (span) => {
    setAll(span, attributes);
    return work();
  });
}

/**
 * The trace id of the request under way, when the runtime tells it (`spanContext()`): a run started
 * by this request takes it, so its id finds the request's trace in the dashboard too.
 */
export function currentTraceId(): string | null {
  const id = runtimeTracing()?.getActiveSpan?.()?.spanContext?.()?.traceId;
  return id && /^[0-9a-f]{32}$/.test(id) && !/^0+$/.test(id) ? id : null;
}

function setAll(span: RuntimeSpan, attributes: SpanAttributes): void {
  for (const [k, v] of Object.entries(attributes)) span.setAttribute(k, v);
}
