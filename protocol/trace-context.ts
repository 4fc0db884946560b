import { z } from "zod";

/**
 * W3C Trace Context (`traceparent`, version 00): how a run's trace travels with its work to the
 * device agent, its MCP servers and remote MCP servers (docs/tracing.md). Pure: the ids come in,
 * or from `randomTraceId`/`randomSpanId`, which only need Web Crypto (Node and workerd both have it).
 */
export type TraceContext = { trace_id: string; span_id: string; sampled: boolean };

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ALL_ZERO = /^0+$/;

/** A `traceparent` field on the wire: checked by shape; a bad one is dropped, never fatal. */
export const Traceparent = z.string().max(55).regex(TRACEPARENT);

export function formatTraceparent(ctx: TraceContext): string {
  return `00-${ctx.trace_id}-${ctx.span_id}-${ctx.sampled ? "01" : "00"}`;
}

/** The context a `traceparent` names; null for anything else, all-zero ids included (the spec's invalid ids). */
export function parseTraceparent(value: string | null | undefined): TraceContext | null {
  const m = value ? TRACEPARENT.exec(value.trim().toLowerCase()) : null;
  if (!m) return null;
  const [, trace_id, span_id, flags] = m as unknown as [string, string, string, string];
  if (ALL_ZERO.test(trace_id) || ALL_ZERO.test(span_id)) return null;
  return { trace_id, span_id, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

function randomHex(bytes: number): string {
  const buf = new Uint8Array(bytes);
  do crypto.getRandomValues(buf);
  while (buf.every((b) => b === 0));
  return Array.from(buf, (b) => b.toString(16).padStart(2, "0")).join("");
}

export const randomTraceId = (): string => randomHex(16);
export const randomSpanId = (): string => randomHex(8);

/**
 * A span id derived from the trace and a key naming the work ("tool:<call id>"): the same on every
 * re-drive, so a command re-sent after a restart carries the same parent, and the span recorded
 * when its result lands has the id the device logged. 64-bit FNV-1a; never all zero.
 */
export function spanIdFor(traceId: string, key: string): string {
  let h = 0xcbf29ce484222325n;
  for (const ch of `${traceId}/${key}`) {
    h ^= BigInt(ch.codePointAt(0) ?? 0);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h === 0n ? "0000000000000001" : h.toString(16).padStart(16, "0");
}
