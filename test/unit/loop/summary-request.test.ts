/** What the summary call is sent: the documented prompt, a transcript held to half the window, the word limit. */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  maxSummaryChars,
  SUMMARY_REQUEST_PREFIX,
  summaryRequest,
  summarySystemPrompt,
} from "../../../durable-objects/conversation/core/compaction-prompt.js";
import type { ChatMessage } from "../../../durable-objects/conversation/core/index.js";

const user = (content: string): ChatMessage => ({ role: "user", content });
const said = (content: string): ChatMessage => ({ role: "assistant", content });
const called = (name: string, args: string): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id: `c-${name}`, type: "function", function: { name, arguments: args } }],
});
const result = (content: string): ChatMessage => ({ role: "tool", tool_call_id: "c", content });

/** The user message of the summary call. */
function body(...args: Parameters<typeof summaryRequest>): string {
  const [, request] = summaryRequest(...args);
  expect(request!.role).toBe("user");
  return request!.content as string;
}

describe("summary request: the system prompt", () => {
  it("is the prompt docs/long-lived.md documents, with the word limit in place of N", () => {
    const doc = readFileSync(resolve(import.meta.dirname, "../../../docs/long-lived.md"), "utf8");
    const documented = doc.match(/System: _"([^"]+)"_/)?.[1];
    expect(documented).toBeDefined();
    const prompt = documented!.replace(/\s+/g, " ").replace("at most N words", "at most 137 words");
    expect(summarySystemPrompt(137)).toBe(prompt);
  });

  it("opens its user message with the documented request, which the scripted model's rule matches", () => {
    const doc = readFileSync(resolve(import.meta.dirname, "../../../docs/long-lived.md"), "utf8");
    const documented = doc.match(/User: `([^`]+)`/)?.[1]?.replace(/\s+/g, " ");
    expect(documented).toBe("[edgeloop] Summarise the conversation so far, for your own memory.");
    expect(body([user("hi")], 0, 1, null, 8000).split("\n")[0]).toBe(documented);
    expect(SUMMARY_REQUEST_PREFIX).toMatch(/^\[edgeloop\] Summarise/);
  });

  it("asks for a sixth of the summary's characters in words", () => {
    const [system] = summaryRequest([user("hi")], 0, 1, null, 10_000);
    expect(system).toEqual({ role: "system", content: summarySystemPrompt(Math.floor(4000 / 6)) });
    expect((system!.content as string).endsWith("at most 666 words.")).toBe(true);
  });
});

describe("summary request: how long a summary may be", () => {
  it("is a tenth of the window in characters (4 a token), rounded down", () => {
    expect(maxSummaryChars(10_000)).toBe(4000);
    expect(maxSummaryChars(10_001)).toBe(4000);
    expect(maxSummaryChars(10_009)).toBe(4003);
  });

  it("is never under 800 characters nor over 16,000", () => {
    expect(maxSummaryChars(0)).toBe(800);
    expect(maxSummaryChars(1999)).toBe(800);
    expect(maxSummaryChars(2001)).toBe(800);
    expect(maxSummaryChars(2010)).toBe(804);
    expect(maxSummaryChars(40_000)).toBe(16_000);
    expect(maxSummaryChars(1_000_000)).toBe(16_000);
  });
});

describe("summary request: the transcript", () => {
  it("reads only messages[from, upto), one line each, the system prompt left out", () => {
    const messages = [
      { role: "system", content: "SYSTEM PROMPT" } as ChatMessage,
      user("before"),
      user("first"),
      said("second"),
      user("after"),
    ];
    expect(body(messages, 0, 4, null, 8000)).toBe(
      [
        `${SUMMARY_REQUEST_PREFIX}, for your own memory.`,
        "",
        "\nThe conversation since the start (oldest first):\nUSER: before\nUSER: first\nASSISTANT: second",
        "\nWrite the new summary: it replaces the summary so far, so keep what still matters from it.",
      ].join("\n"),
    );
    const middle = body(messages, 2, 4, null, 8000);
    expect(middle).toContain("(oldest first):\nUSER: first\nASSISTANT: second\n");
    expect(middle).not.toContain("before");
    expect(middle).not.toContain("after");
  });

  it("puts the summary so far first and says the new part comes after it", () => {
    expect(body([user("water the plants")], 0, 1, "pump on pin 4", 8000)).toBe(
      [
        `${SUMMARY_REQUEST_PREFIX}, for your own memory.`,
        "\nThe summary so far:\npump on pin 4",
        "\nThe conversation since that summary (oldest first):\nUSER: water the plants",
        "\nWrite the new summary: it replaces the summary so far, so keep what still matters from it.",
      ].join("\n"),
    );
  });

  it("writes an assistant's text and each of its tool calls on their own lines", () => {
    const both: ChatMessage = {
      role: "assistant",
      content: "switching the pump on",
      tool_calls: [
        { id: "c1", type: "function", function: { name: "gpio_write", arguments: '{"pin":4}' } },
        { id: "c2", type: "function", function: { name: "read", arguments: '{"path":"/x"}' } },
      ],
    };
    const text = body([both, result("done")], 0, 2, null, 8000);
    expect(text).toContain(
      '(oldest first):\nASSISTANT: switching the pump on\nASSISTANT called gpio_write {"pin":4}\nASSISTANT called read {"path":"/x"}\nTOOL RESULT: done\n',
    );
  });

  it("leaves out an assistant message with neither text nor calls", () => {
    const text = body([user("a"), { role: "assistant", content: "" }, user("b")], 0, 3, null, 8000);
    expect(text).toContain("(oldest first):\nUSER: a\nUSER: b\n");
  });

  it("cuts tool results and arguments to 1,500 characters and messages to 6,000, saying how much", () => {
    const text = body(
      [
        user("u".repeat(6000)),
        user("v".repeat(6001)),
        called("bash", "a".repeat(1501)),
        result("r".repeat(1500)),
        result("s".repeat(1502)),
        said("w".repeat(6003)),
      ],
      0,
      6,
      null,
      100_000,
    );
    const lines = text.split("\n");
    expect(lines).toContain(`USER: ${"u".repeat(6000)}`);
    expect(lines).toContain(`USER: ${"v".repeat(6000)} […1 characters cut]`);
    expect(lines).toContain(`ASSISTANT called bash ${"a".repeat(1500)} […1 characters cut]`);
    expect(lines).toContain(`TOOL RESULT: ${"r".repeat(1500)}`);
    expect(lines).toContain(`TOOL RESULT: ${"s".repeat(1500)} […2 characters cut]`);
    expect(lines).toContain(`ASSISTANT: ${"w".repeat(6000)} […3 characters cut]`);
  });

  it("drops the oldest lines past half the window (at least 2,000 characters) and says how many", () => {
    // 10 lines of 1,000 characters ("USER: " + 994), 1,001 with the newline each.
    const messages = Array.from({ length: 10 }, (_, i) => user(`${i}`.repeat(994)));
    const linesIn = (text: string) => text.split("\n").filter((l) => l.startsWith("USER: "));
    // Half of 2,000 tokens is 4,000 characters: three lines fit (3,003), a fourth does not (4,004).
    const small = body(messages, 0, 10, null, 2000);
    expect(small).toContain("(oldest first):\n[7 older lines omitted: they did not fit the summary call]\nUSER: 777");
    expect(linesIn(small).map((l) => l[6])).toEqual(["7", "8", "9"]);
    // Exactly four lines' worth fits four.
    expect(linesIn(body(messages, 0, 10, null, 2002))).toHaveLength(4);
    expect(linesIn(body(messages, 0, 10, null, 2001.75))).toHaveLength(3);
    // A tiny window still gets 2,000 characters: one line.
    const tiny = body(messages, 0, 10, null, 10);
    expect(tiny).toContain("[9 older lines omitted: they did not fit the summary call]");
    expect(linesIn(tiny)).toHaveLength(1);
    // Everything fits: no note.
    const all = body(messages, 0, 10, null, 100_000);
    expect(linesIn(all)).toHaveLength(10);
    expect(all).not.toContain("omitted");
  });
});
