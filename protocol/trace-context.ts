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
 * when its result lands has the id the device logged. 64-bit FNV-1a over the code points; never
 * all zero.
 *
 * In four 16-bit limbs rather than a BigInt: a conversation derives ids for every step's spans and
 * every command's traceparent, and BigInt arithmetic allocated per character was most of a step's
 * tracing time (bench/profile-cpu.ts --fleet). The prime is 2^40 + 0x1b3, so a product is the
 * limbs times 0x1b3 plus the hash shifted by 40 bits (two limbs and 8 bits), carried limb by limb.
 */
export function spanIdFor(traceId: string, key: string): string {
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  for (const ch of `${traceId}/${key}`) {
    const c = ch.codePointAt(0) ?? 0;
    h0 ^= c & 0xffff;
    h1 ^= c >>> 16;
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    const t2 = h2 * 0x1b3 + (h0 << 8) + (t1 >>> 16);
    const t3 = h3 * 0x1b3 + (h1 << 8) + (t2 >>> 16);
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
    h3 = t3 & 0xffff;
  }
  if ((h0 | h1 | h2 | h3) === 0) return "0000000000000001";
  return [h3, h2, h1, h0].map((l) => l.toString(16).padStart(4, "0")).join("");
}
