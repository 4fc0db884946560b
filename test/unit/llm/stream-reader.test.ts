import { describe, expect, it } from "vitest";
import { readStream } from "../../../durable-objects/conversation/llm/stream-reader.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Items with a pause before each: `gaps[i]` ms before item i. */
async function* paced(gaps: number[]): AsyncIterable<number> {
  for (const [i, gap] of gaps.entries()) {
    await sleep(gap);
    yield i;
  }
}

describe("reading a model's stream", () => {
  it("a stream whose items keep coming is read to the end, however long it takes in all", async () => {
    const items: number[] = [];
    // Each pause is under the idle limit, all of them together well over it.
    const read = await readStream({
      open: async () => paced([0, 100, 100, 100, 100, 100, 100]),
      onItem: (i) => items.push(i),
      idleMs: 400,
    });
    expect(read).toEqual({ ok: true });
    expect(items).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("a silence longer than the idle limit after some items ends it as stalled", async () => {
    const items: number[] = [];
    const read = await readStream({
      open: async () => paced([0, 100, 1200]),
      onItem: (i) => items.push(i),
      idleMs: 300,
    });
    expect(read).toEqual({ ok: false, error: { kind: "timeout", message: "LLM stream stalled: no data for 300ms" } });
    expect(items).toEqual([0, 1]);
  });

  it("a stream that sends nothing at all ends as stalled", async () => {
    const read = await readStream({ open: async () => paced([1200]), onItem: () => {}, idleMs: 300 });
    expect(read).toEqual({ ok: false, error: { kind: "timeout", message: "LLM stream stalled: no data for 300ms" } });
  });
});
