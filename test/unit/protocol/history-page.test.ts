import { describe, expect, it } from "vitest";
import { HistoryPageQuery, historyPageRange, readWholeHistory } from "../../../protocol/history-page.js";

const q = (query: Record<string, string>) => HistoryPageQuery.parse(query);

describe("a page of the history", () => {
  it("is the latest `limit` by default, ends before `before`, or starts at `from`; never past the end", () => {
    expect(historyPageRange(q({}), 450)).toEqual({ from: 250, to: 450 });
    expect(historyPageRange(q({}), 30)).toEqual({ from: 0, to: 30 });
    expect(historyPageRange(q({ before: "250", limit: "100" }), 450)).toEqual({ from: 150, to: 250 });
    expect(historyPageRange(q({ before: "40", limit: "100" }), 450)).toEqual({ from: 0, to: 40 });
    expect(historyPageRange(q({ before: "9000" }), 450)).toEqual({ from: 250, to: 450 });
    expect(historyPageRange(q({ from: "440", limit: "100" }), 450)).toEqual({ from: 440, to: 450 });
    expect(historyPageRange(q({ from: "999" }), 450)).toEqual({ from: 450, to: 450 });
    // `from` wins over `before`.
    expect(historyPageRange(q({ from: "10", before: "5", limit: "3" }), 450)).toEqual({ from: 10, to: 13 });
  });

  it("refuses sizes and numbers out of range", () => {
    for (const bad of [{ limit: "0" }, { limit: "1001" }, { from: "-1" }, { before: "1.5" }, { from: "x" }]) {
      expect(HistoryPageQuery.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("readWholeHistory follows the pages from the oldest until it has them all", async () => {
    const all = Array.from({ length: 2500 }, (_, i) => i);
    const asked: string[] = [];
    const whole = await readWholeHistory(async (query) => {
      asked.push(query);
      const { from, to } = historyPageRange(q(Object.fromEntries(new URLSearchParams(query))), all.length);
      return { messages: all.slice(from, to), messages_from: from, messages_total: all.length, status: "idle" };
    });
    expect(whole).toEqual({ messages: all, messages_from: 0, messages_total: 2500, status: "idle" });
    expect(asked).toEqual(["?from=0&limit=1000", "?from=1000&limit=1000", "?from=2000&limit=1000"]);
    expect(await readWholeHistory(async () => null)).toBeNull();
  });
});
