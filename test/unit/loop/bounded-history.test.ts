import { describe, expect, it } from "vitest";
import { modelMessages } from "../../../durable-objects/conversation/core/compaction.js";
import {
  dropBefore,
  historyLength,
  messageAt,
  windowStart,
} from "../../../durable-objects/conversation/core/history.js";
import { advance } from "../../../durable-objects/conversation/core/index.js";
import type { LoopState } from "../../../durable-objects/conversation/core/types.js";
import { assertPaired, driver, NOW, RESULT, step, turn } from "./compaction-driver.js";
import { calls, ok, only, TOOLS } from "./fixtures.js";

// docs/architecture.md#bounded-memory: the loop holds the history since the latest compaction's
// kept part (and the system prompt); the rest is in storage only.
describe("bounded history in memory", () => {
  it("holds about the same number of messages at turn 50 and at turn 500, and counts them all", () => {
    const d = driver({ context_tokens: 8000, keep_recent_turns: 3 });
    const held: Record<number, number> = {};
    for (let n = 1; n <= 500; n++) {
      turn(d, n);
      held[n] = d.state.messages.length;
      // The model's view still starts with the system prompt, which memory keeps apart.
      expect(modelMessages(d.state)[0]).toEqual({ role: "system", content: "You are helpful." });
      assertPaired(modelMessages(d.state));
    }
    expect(historyLength(d.state)).toBe(1 + 500 * 4);
    expect(windowStart(d.state)).toBe(d.state.compaction!.upto);
    // A saw-tooth between compactions, never growing with the conversation.
    const most = (from: number, to: number) => Math.max(...Object.values(held).slice(from - 1, to));
    expect(most(451, 500)).toBeLessThanOrEqual(most(1, 50));
    expect(d.state.messages.length).toBeLessThan(40);
    // The messages held are the latest ones, numbered as in the whole history.
    expect(messageAt(d.state, historyLength(d.state) - 1)).toEqual({ role: "assistant", content: "answer 500" });
    expect(messageAt(d.state, 5)).toBeUndefined();
  });

  it("keeps a long run's own user message in memory while compactions cut inside that run", () => {
    const d = driver({ context_tokens: 6000, keep_recent_turns: 4, max_iterations: 80 });
    turn(d, 1);
    step(d, advance(d.state, { type: "user_message", message_id: "m2", text: "check all disks", tools: TOOLS }, NOW));
    const asked = historyLength(d.state) - 1;
    for (let i = 0; i < 30; i++) {
      const call = `r${i}`;
      const turnOut = calls(["bash", { command: `du ${i}` }, call]);
      step(d, advance(d.state, { type: "llm_response", call_id: d.state.run!.awaiting_llm!, turn: turnOut }, NOW));
      const requestId = d.state.run!.round![0]!.request_id;
      const outcome = ok("bash", RESULT);
      step(d, advance(d.state, { type: "tool_result", tool_call_id: call, request_id: requestId, outcome }, NOW));
    }
    expect(d.compactions).toBeGreaterThan(1);
    expect(d.state.compaction!.pinned).toBe(asked);
    expect(windowStart(d.state)).toBe(asked);
    const view = modelMessages(d.state);
    expect(view[2]).toEqual({ role: "user", content: "check all disks" });
    assertPaired(view.slice(3));
  });

  it("a late result for a call memory no longer holds counts only when the shell found the call in storage", () => {
    const d = driver({ context_tokens: 8000, keep_recent_turns: 2 });
    for (let n = 1; n <= 30; n++) turn(d, n);
    expect(windowStart(d.state)).toBeGreaterThan(8);
    const late = {
      type: "late_tool_result" as const,
      tool_call_id: "c1",
      request_id: "rq-c1",
      outcome: ok("bash", "x"),
    };
    // Not in memory, and the shell found nothing: a call this conversation never made.
    expect(advance(d.state, late, NOW).effects).toEqual([]);
    const kept = advance(d.state, { ...late, stored_tool: "bash" }, NOW);
    expect(only(kept.effects, "emit_event")[0]!.event).toMatchObject({ type: "tool_late_result", toolName: "bash" });
    expect(kept.state.late_results).toEqual([
      { tool_call_id: "c1", request_id: "rq-c1", tool: "bash", outcome: ok("bash", "x") },
    ]);
  });
});

describe("dropping messages from memory", () => {
  const held = (): LoopState =>
    ({
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "one" },
        { role: "assistant", content: "1" },
        { role: "user", content: "two" },
        { role: "assistant", content: "2" },
      ],
    }) as LoopState;

  it("keeps the system prompt and numbers the rest as before", () => {
    const state = held();
    dropBefore(state, 3);
    expect(state.messages.map((m) => m.content)).toEqual(["two", "2"]);
    expect(state.history).toEqual({ from: 3, system: { role: "system", content: "be brief" } });
    expect(messageAt(state, 0)?.content).toBe("be brief");
    expect(messageAt(state, 1)).toBeUndefined();
    expect(messageAt(state, 4)?.content).toBe("2");
    expect(historyLength(state)).toBe(5);
  });

  it("does nothing for a point memory already starts at or after", () => {
    const fresh = held();
    dropBefore(fresh, 0);
    expect(fresh).toEqual(held());
    expect(fresh.history).toBeUndefined();
    const cut = held();
    dropBefore(cut, 3);
    dropBefore(cut, 2);
    expect(cut.messages.map((m) => m.content)).toEqual(["two", "2"]);
    expect(cut.history?.from).toBe(3);
  });
});
