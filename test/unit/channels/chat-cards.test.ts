import { describe, expect, it } from "vitest";
import {
  approvalButtons,
  decidedLine,
  parseButtonData,
  questionCard,
} from "../../../durable-objects/channels/chat-content/cards.js";
import { parseCommand } from "../../../durable-objects/channels/chat-content/chat-commands.js";
import { renderLive } from "../../../durable-objects/channels/chat-content/live-reply.js";

describe("cards and their buttons", () => {
  it("Approve / Always / Deny carry a short id and a choice, at most 64 bytes, and parse back", () => {
    const [row] = approvalButtons("a1b2c3d4e5");
    expect(row!.map((b) => b.label)).toEqual(["Approve", "Always", "Deny"]);
    for (const b of row!) expect(new TextEncoder().encode(b.data).length).toBeLessThanOrEqual(64);
    expect(row!.map((b) => parseButtonData(b.data))).toEqual([
      { cardId: "a1b2c3d4e5", approval: "once" },
      { cardId: "a1b2c3d4e5", approval: "always" },
      { cardId: "a1b2c3d4e5", approval: "deny" },
    ]);
  });

  it("a question's options become one button each; too many, or none, means typing", () => {
    const card = questionCard("q1q2q3q4q5", "Which?", ["red", "blue"]);
    expect(card.buttons.map((r) => r[0]!.label)).toEqual(["red", "blue"]);
    expect(parseButtonData(card.buttons[1]![0]!.data)).toEqual({ cardId: "q1q2q3q4q5", option: 1 });
    expect(questionCard("q1q2q3q4q5", "Which?", []).buttons).toEqual([]);
    expect(
      questionCard(
        "q1q2q3q4q5",
        "Which?",
        Array.from({ length: 9 }, (_, i) => `o${i}`),
      ).buttons,
    ).toEqual([]);
  });

  it("refuses button data edgeloop did not make", () => {
    for (const data of ["", "x:o", "abcdef:z", "abcdef:o:extra", "ABCDEF:o", "abcdef:123"])
      expect(parseButtonData(data)).toBeNull();
  });

  it("a decided card says who and when, in UTC", () => {
    expect(decidedLine("✅ Approved", "Alice", Date.UTC(2026, 10, 26, 1, 2, 3))).toBe(
      "✅ Approved by Alice at 2026-11-26 01:02 UTC",
    );
  });
});

describe("chat commands", () => {
  it("knows /new, /device, /help and /start, with or without the bot's name", () => {
    expect(parseCommand("/new")).toEqual({ kind: "new" });
    expect(parseCommand("/new@my_bot")).toEqual({ kind: "new" });
    expect(parseCommand("/device pi-2")).toEqual({ kind: "device", target: "pi-2" });
    expect(parseCommand("/device@my_bot pool:kitchen")).toEqual({ kind: "device", target: "pool:kitchen" });
    expect(parseCommand("/device")).toEqual({ kind: "device", target: null });
    expect(parseCommand("/start")).toEqual({ kind: "help" });
    expect(parseCommand("/frobnicate")).toEqual({ kind: "unknown", name: "frobnicate" });
    expect(parseCommand("hello /new")).toBeNull();
    expect(parseCommand("/ not a command")).toBeNull();
  });
});

describe("the live message", () => {
  it("shows a compact line per tool, then the text; a long one shows its start", () => {
    const tools = [
      { id: "1", tool: "bash", agentId: "pi-1", state: "ok" as const },
      { id: "2", tool: "read_file", agentId: "pi-1", state: "running" as const },
    ];
    expect(renderLive(tools, "Working on it", 500)).toBe("`bash` on pi-1 ✓\n`read_file` on pi-1 …\n\nWorking on it");
    expect(renderLive([], "", 500)).toBe("…");
    const long = renderLive([], "z".repeat(600), 100);
    expect(long.length).toBeLessThanOrEqual(100);
    expect(long.endsWith(" …")).toBe(true);
  });
});
