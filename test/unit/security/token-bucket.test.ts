import { describe, expect, it } from "vitest";
import { refill, take, takeAdmission } from "../../../durable-objects/front-door/token-bucket.js";

/** The front door's rate limit (durable-objects/front-door/token-bucket.ts), as the limiter object applies it. */
const limits = { perMinute: 6, burst: 3 };

describe("the token bucket", () => {
  it("starts full, and lets a burst through, then refuses with the wait until a token is back", () => {
    let bucket = take(null, limits, 0);
    expect(bucket).toEqual({ ok: true, bucket: { tokens: 2, updated_at: 0 } });
    bucket = take(bucket.bucket, limits, 0);
    bucket = take(bucket.bucket, limits, 0);
    expect(bucket).toEqual({ ok: true, bucket: { tokens: 0, updated_at: 0 } });
    // 6 a minute: one every 10 s.
    expect(take(bucket.bucket, limits, 0)).toEqual({
      ok: false,
      bucket: { tokens: 0, updated_at: 0 },
      retry_after_s: 10,
    });
  });

  it("refills in proportion to the time passed, never above the burst", () => {
    expect(refill({ tokens: 0, updated_at: 0 }, limits, 5_000)).toEqual({ tokens: 0.5, updated_at: 5_000 });
    expect(refill({ tokens: 0, updated_at: 0 }, limits, 10_000)).toEqual({ tokens: 1, updated_at: 10_000 });
    expect(refill({ tokens: 2.5, updated_at: 0 }, limits, 60_000)).toEqual({ tokens: 3, updated_at: 60_000 });
    expect(refill(null, limits, 7)).toEqual({ tokens: 3, updated_at: 7 });
  });

  it("does not refill for a clock that went back", () => {
    expect(refill({ tokens: 1, updated_at: 10_000 }, limits, 4_000)).toEqual({ tokens: 1, updated_at: 4_000 });
  });

  it("takes exactly one whole token, and none while less than one is there", () => {
    expect(take({ tokens: 1, updated_at: 0 }, limits, 0)).toEqual({ ok: true, bucket: { tokens: 0, updated_at: 0 } });
    const partial = take({ tokens: 0.5, updated_at: 0 }, limits, 0);
    expect(partial).toEqual({ ok: false, bucket: { tokens: 0.5, updated_at: 0 }, retry_after_s: 5 });
  });

  it("says to wait at least a second, rounded up", () => {
    expect(take({ tokens: 0.99, updated_at: 0 }, limits, 0)).toMatchObject({ ok: false, retry_after_s: 1 });
    expect(take({ tokens: 0.05, updated_at: 0 }, limits, 0)).toMatchObject({ ok: false, retry_after_s: 10 });
    expect(take({ tokens: 0, updated_at: 0 }, { perMinute: 7, burst: 1 }, 0)).toMatchObject({ retry_after_s: 9 });
  });

  it("answers a refusal as the 429 does: the wait and the limit that was hit", () => {
    expect(takeAdmission(take({ tokens: 1, updated_at: 0 }, limits, 0), limits)).toEqual({ ok: true });
    expect(takeAdmission(take({ tokens: 0, updated_at: 0 }, limits, 0), limits)).toEqual({
      ok: false,
      reason: "rate",
      retry_after_s: 10,
      detail: "over 6/min (burst 3)",
    });
  });
});
