import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DeltaBuffer } from "../../../durable-objects/conversation/views/delta-buffer.js";

describe("DeltaBuffer: streamed text gathered before it is stored", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("calls onDue once, a window after the first text, and hands over all of it in order", () => {
    const stored: string[] = [];
    const buffer: DeltaBuffer = new DeltaBuffer(50, () => stored.push(buffer.take()));
    buffer.add("Hel");
    vi.advanceTimersByTime(30);
    buffer.add("lo, ");
    buffer.add("world");
    expect(stored).toEqual([]);
    vi.advanceTimersByTime(20);
    expect(stored).toEqual(["Hello, world"]);
    buffer.add("!");
    vi.advanceTimersByTime(49);
    expect(stored).toEqual(["Hello, world"]);
    vi.advanceTimersByTime(1);
    expect(stored).toEqual(["Hello, world", "!"]);
  });

  it("take() empties it and stops the timer, so nothing is stored twice", () => {
    const onDue = vi.fn();
    const buffer = new DeltaBuffer(50, onDue);
    buffer.add("a");
    buffer.add("b");
    expect(buffer.take()).toBe("ab");
    expect(buffer.take()).toBe("");
    vi.advanceTimersByTime(100);
    expect(onDue).not.toHaveBeenCalled();
  });

  it("ignores empty text: no timer for nothing", () => {
    const onDue = vi.fn();
    const buffer = new DeltaBuffer(50, onDue);
    buffer.add("");
    vi.advanceTimersByTime(100);
    expect(onDue).not.toHaveBeenCalled();
  });
});
