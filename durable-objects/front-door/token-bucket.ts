/**
 * A token bucket as a pure function: `burst` tokens at most, refilled at `perMinute` per minute.
 * Taking from an empty bucket says how long until a token is back (for `Retry-After`).
 */
export type Bucket = { tokens: number; updated_at: number };
export type BucketLimits = { perMinute: number; burst: number };

export type Take = { ok: true; bucket: Bucket } | { ok: false; bucket: Bucket; retry_after_s: number };

export function refill(bucket: Bucket | null, limits: BucketLimits, now: number): Bucket {
  if (!bucket) return { tokens: limits.burst, updated_at: now };
  const elapsed = Math.max(0, now - bucket.updated_at);
  const tokens = Math.min(limits.burst, bucket.tokens + (elapsed * limits.perMinute) / 60_000);
  return { tokens, updated_at: now };
}

export function take(bucket: Bucket | null, limits: BucketLimits, now: number): Take {
  const b = refill(bucket, limits, now);
  if (b.tokens >= 1) return { ok: true, bucket: { ...b, tokens: b.tokens - 1 } };
  const msPerToken = 60_000 / limits.perMinute;
  return { ok: false, bucket: b, retry_after_s: Math.max(1, Math.ceil(((1 - b.tokens) * msPerToken) / 1000)) };
}

/** A refused take as the front door answers it (`429` with `Retry-After`). */
export type RateRefusal = { ok: false; reason: "rate"; retry_after_s: number; detail: string };

export function takeAdmission(result: Take, limits: BucketLimits): { ok: true } | RateRefusal {
  if (result.ok) return { ok: true };
  const detail = `over ${limits.perMinute}/min (burst ${limits.burst})`;
  return { ok: false, reason: "rate", retry_after_s: result.retry_after_s, detail };
}
