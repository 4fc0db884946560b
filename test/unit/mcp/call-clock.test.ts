import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CallClock } from "../../../durable-objects/conversation/mcp/call-clock.js";

describe("CallClock: a call's time limit that stops while a person is asked", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("fires once the call has used its limit, not counting the paused time", () => {
    const fired = vi.fn();
    const clock = new CallClock(1000, fired);
    vi.advanceTimersByTime(600);
    clock.pause();
    vi.advanceTimersByTime(60_000);
    expect(fired).not.toHaveBeenCalled();
    clock.resume();
    vi.advanceTimersByTime(399);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it("nested pauses hold it until the last resume; a stopped clock never fires", () => {
    const fired = vi.fn();
    const clock = new CallClock(100, fired);
    clock.pause();
    clock.pause();
    clock.resume();
    vi.advanceTimersByTime(1000);
    expect(fired).not.toHaveBeenCalled();
    clock.resume();
    clock.stop();
    vi.advanceTimersByTime(1000);
    expect(fired).not.toHaveBeenCalled();
  });
});
