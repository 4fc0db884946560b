/** What the model reads after a compaction: the summary held to its size, the open todos, the framing note. */
import { describe, expect, it } from "vitest";
import { modelMessages } from "../../../durable-objects/conversation/core/compaction.js";
import {
  composeSummary,
  maxSummaryChars,
  summaryMessageText,
} from "../../../durable-objects/conversation/core/compaction-prompt.js";
import type { ChatMessage, Compaction } from "../../../durable-objects/conversation/core/index.js";

const WINDOW = 10_000; // a 4,000-character summary

describe("summary message: the summary kept", () => {
  it("is the model's summary without the whitespace around it", () => {
    expect(composeSummary("  pump on pin 4\n\n", [], WINDOW)).toBe("pump on pin 4");
  });

  it("is cut at the window's summary size, marked, and a summary of exactly that size is kept whole", () => {
    const max = maxSummaryChars(WINDOW);
    expect(composeSummary(` ${"a".repeat(max)} `, [], WINDOW)).toBe("a".repeat(max));
    expect(composeSummary(` ${"b".repeat(max + 1)}  `, [], WINDOW)).toBe(`${"b".repeat(max)} […]`);
  });

  it("says the model wrote none when it answered with nothing but whitespace", () => {
    expect(composeSummary(" \n ", [], WINDOW)).toBe("(the model wrote no summary)");
    expect(composeSummary("", ["[pending] water"], WINDOW)).toBe(
      "(the model wrote no summary)\n\nOpen todos (from todowrite):\n- [pending] water",
    );
  });

  it("lists the open todos word for word after the summary, one a line", () => {
    expect(composeSummary("s", ["[pending] water", "[in_progress] repot"], WINDOW)).toBe(
      "s\n\nOpen todos (from todowrite):\n- [pending] water\n- [in_progress] repot",
    );
    expect(composeSummary("s", [], WINDOW)).toBe("s");
  });
});

describe("summary message: in the model's view", () => {
  const compaction = (over: Partial<Compaction>): Compaction => ({
    upto: 3,
    pinned: null,
    summary: "pump on pin 4",
    at: 0,
    tokens_before: 0,
    tokens_after: 0,
    ...over,
  });

  it("frames the summary as a note from edgeloop that the full history is kept", () => {
    expect(summaryMessageText(compaction({}))).toBe(
      "[edgeloop] The earlier part of this conversation was replaced by this summary to save context (the full history is kept outside your view):\npump on pin 4",
    );
  });

  it("follows the system prompt, then the pinned turn, then the kept messages", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "check the disks" },
      { role: "assistant", content: "one moment" },
      { role: "assistant", content: "disk 1 ok" },
      { role: "assistant", content: "disk 2 ok" },
    ];
    const c = compaction({ upto: 3, pinned: 1 });
    const view = modelMessages({ messages, compaction: c });
    expect(view).toEqual([
      messages[0],
      { role: "user", content: summaryMessageText(c) },
      messages[1],
      messages[3],
      messages[4],
    ]);
    // The same summary message object every time: the shell serializes it once.
    expect(modelMessages({ messages, compaction: c })[1]).toBe(view[1]);
  });

  it("starts with the summary when there is no system prompt, and pins nothing unless told", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "first" },
      { role: "assistant", content: "a" },
      { role: "user", content: "second" },
    ];
    const c = compaction({ upto: 2, pinned: null });
    expect(modelMessages({ messages, compaction: c })).toEqual([
      { role: "user", content: summaryMessageText(c) },
      messages[2],
    ]);
    // pinned 0 is a real index (the first message), not "none".
    const pinnedFirst = compaction({ upto: 2, pinned: 0 });
    expect(modelMessages({ messages, compaction: pinnedFirst })).toEqual([
      { role: "user", content: summaryMessageText(pinnedFirst) },
      messages[0],
      messages[2],
    ]);
  });
});
