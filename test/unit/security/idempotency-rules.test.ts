import { describe, expect, it } from "vitest";
import {
  beginWith,
  forgetAt,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyEntry,
  IN_PROGRESS_STALE_MS,
} from "../../../durable-objects/front-door/idempotency-rules.js";

/** An idempotency key's rules (IdempotencyDO keeps the row; workerd's test/worker/front-door-idempotency-crash.test.ts runs it). */
const T0 = 1_000_000;
const inProgress: IdempotencyEntry = {
  state: "in_progress",
  fingerprint: "f1",
  status: null,
  body: null,
  content_type: null,
  started_at: T0,
};
const done: IdempotencyEntry = {
  ...inProgress,
  state: "done",
  status: 202,
  body: '{"ok":1}',
  content_type: "application/json",
};

describe("an idempotency key", () => {
  it("is claimed by the first request", () => {
    expect(beginWith(null, "f1", T0)).toEqual({ state: "new" });
  });

  it("answers a repeat with the stored response, for the whole day it is kept", () => {
    const response = { status: 202, body: '{"ok":1}', content_type: "application/json" };
    expect(beginWith(done, "f1", T0)).toEqual({ state: "done", response });
    expect(beginWith(done, "f1", T0 + IDEMPOTENCY_TTL_MS - 1)).toEqual({ state: "done", response });
    expect(beginWith(done, "f1", T0 + IDEMPOTENCY_TTL_MS)).toEqual({ state: "new" });
  });

  it("refuses the same key with another body while it is kept, and not after", () => {
    expect(beginWith(done, "f2", T0 + 5)).toEqual({ state: "mismatch" });
    expect(beginWith(inProgress, "f2", T0 + 5)).toEqual({ state: "mismatch" });
    expect(beginWith(done, "f2", T0 + IDEMPOTENCY_TTL_MS)).toEqual({ state: "new" });
  });

  it("tells a repeat of a request under way to retry in a second, until the first is taken as abandoned", () => {
    expect(beginWith(inProgress, "f1", T0)).toEqual({ state: "in_progress", retry_after_s: 1 });
    expect(beginWith(inProgress, "f1", T0 + IN_PROGRESS_STALE_MS - 1)).toEqual({
      state: "in_progress",
      retry_after_s: 1,
    });
    expect(beginWith(inProgress, "f1", T0 + IN_PROGRESS_STALE_MS)).toEqual({ state: "new" });
    // A finished request is never taken as abandoned.
    expect(beginWith(done, "f1", T0 + IN_PROGRESS_STALE_MS)).toMatchObject({ state: "done" });
  });

  it("is forgotten a day after it was claimed, not before", () => {
    expect(forgetAt(inProgress, T0 + 1)).toBe(T0 + IDEMPOTENCY_TTL_MS);
    expect(forgetAt(inProgress, T0 + IDEMPOTENCY_TTL_MS - 1)).toBe(T0 + IDEMPOTENCY_TTL_MS);
    expect(forgetAt(inProgress, T0 + IDEMPOTENCY_TTL_MS)).toBeNull();
    expect(forgetAt(null, T0)).toBeNull();
  });

  it("is kept for a day and an abandoned claim is retried after 15 s", () => {
    expect(IDEMPOTENCY_TTL_MS).toBe(86_400_000);
    expect(IN_PROGRESS_STALE_MS).toBe(15_000);
  });
});
