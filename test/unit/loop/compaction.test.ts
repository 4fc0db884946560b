import { describe, expect, it } from "vitest";
import {
  estimateTokens,
  messageTokens,
  modelMessages,
  selectCut,
} from "../../../durable-objects/conversation/core/compaction.js";
import {
  SUMMARY_REQUEST_PREFIX,
  summaryRequest,
} from "../../../durable-objects/conversation/core/compaction-prompt.js";
import { historyLength, messageAt, windowStart } from "../../../durable-objects/conversation/core/history.js";
import { advance, type ChatMessage, initialState } from "../../../durable-objects/conversation/core/index.js";
import { assertPaired, driver, NOW, RESULT, step, turn } from "./compaction-driver.js";
import { calls, ok, only, TOOLS, text } from "./fixtures.js";

describe("compaction: the estimate", () => {
  it("counts characters / 4 plus a little per message, tool call arguments included", () => {
    expect(messageTokens({ role: "user", content: "a".repeat(400) })).toBe(104);
    const call: ChatMessage = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "b".repeat(76) } }],
    };
    expect(messageTokens(call)).toBe(Math.ceil((4 + 76 + 24) / 4) + 4);
    expect(estimateTokens([{ role: "user", content: "a".repeat(400) }, call])).toBe(104 + messageTokens(call));
  });
});

describe("compaction: when and what", () => {
  it("never compacts without a context window", () => {
    const d = driver({ context_tokens: null });
    for (let n = 1; n <= 12; n++) turn(d, n);
    expect(d.compactions).toBe(0);
    expect(modelMessages(d.state)).toBe(d.state.messages);
  });

  it("holds the model call back for a summary once the estimate passes the threshold, then makes it", () => {
    const d = driver({ context_tokens: 8000, compact_at: 0.75, keep_recent_turns: 2 });
    let n = 0;
    while (d.compactions === 0 && n < 20) turn(d, ++n);
    expect(d.compactions).toBe(1);
    // Below the threshold before the compaction: 6000 tokens at ~1030 a turn.
    expect(n).toBeGreaterThan(4);
    const c = d.state.compaction!;
    expect(c.summary).toContain("summary #1");
    expect(c.summary).toContain("- [pending] water");
    expect(c.tokens_after).toBeLessThan(c.tokens_before);
    expect(c.tokens_after).toBeLessThan(8000 * 0.75);
    // What the view no longer shows has left memory too (docs/architecture.md#bounded-memory).
    expect(historyLength(d.state)).toBe(1 + n * 4);
    expect(windowStart(d.state)).toBe(c.upto);
    expect(d.state.messages).toHaveLength(1 + n * 4 - c.upto);
    const view = modelMessages(d.state);
    expect(view[0]).toEqual({ role: "system", content: "You are helpful." });
    expect(view[1]!.role).toBe("user");
    expect((view[1] as { content: string }).content).toContain("summary #1");
    assertPaired(view);
  });

  it("keeps the latest KEEP_RECENT_TURNS turns word for word and summarizes what came before", () => {
    const d = driver({ context_tokens: 12_000, compact_at: 0.75, keep_recent_turns: 2 });
    let n = 0;
    while (d.compactions === 0) turn(d, ++n);
    const { from, upto } = d.summaryInputs[0]!;
    expect(from).toBe(1); // after the system prompt
    // The compaction happened before the model call of turn n: turns n-1 and n are kept.
    expect(messageAt(d.state, upto)).toEqual({ role: "user", content: `turn ${n - 1}` });
    const view = modelMessages(d.state);
    const users = view.filter((m) => m.role === "user").map((m) => m.content);
    expect(users.slice(-2)).toEqual([`turn ${n - 1}`, `turn ${n}`]);
    expect(view.slice(2)).toEqual(d.state.messages);
  });

  it("stays under the window for a long conversation, each compaction summarizing only what is new", () => {
    const d = driver({ context_tokens: 8000, keep_recent_turns: 3 });
    for (let n = 1; n <= 60; n++) {
      turn(d, n);
      const estimate = estimateTokens(modelMessages(d.state));
      expect(estimate).toBeLessThan(8000);
    }
    expect(d.compactions).toBeGreaterThan(5);
    for (let i = 1; i < d.summaryInputs.length; i++) {
      expect(d.summaryInputs[i]!.from).toBe(d.summaryInputs[i - 1]!.upto);
    }
    assertPaired(modelMessages(d.state));
  });

  it("cuts inside a long run at a call boundary and keeps that run's user message", () => {
    const d = driver({ context_tokens: 6000, keep_recent_turns: 4, max_iterations: 50 });
    step(d, advance(d.state, { type: "user_message", message_id: "m1", text: "check all disks", tools: TOOLS }, NOW));
    for (let i = 0; i < 12; i++) {
      const call = `c${i}`;
      step(
        d,
        advance(
          d.state,
          {
            type: "llm_response",
            call_id: d.state.run!.awaiting_llm!,
            turn: calls(["bash", { command: `du ${i}` }, call]),
          },
          NOW,
        ),
      );
      const requestId = d.state.run!.round![0]!.request_id;
      step(
        d,
        advance(
          d.state,
          { type: "tool_result", tool_call_id: call, request_id: requestId, outcome: ok("bash", RESULT) },
          NOW,
        ),
      );
    }
    expect(d.compactions).toBeGreaterThan(0);
    const c = d.state.compaction!;
    expect(c.pinned).toBe(1);
    const view = modelMessages(d.state);
    expect(view[2]).toEqual({ role: "user", content: "check all disks" });
    expect(view[3]!.role).toBe("assistant"); // the kept part starts at a call, never at its result
    assertPaired(view);
    expect(estimateTokens(view)).toBeLessThan(6000 * 0.75);
  });

  it("learns from the provider's usage: reported tokens twice the estimate compact twice as early", () => {
    const plain = driver({ context_tokens: 12_000, keep_recent_turns: 1 });
    let n = 0;
    while (plain.compactions === 0) turn(plain, ++n);

    const d = driver({ context_tokens: 12_000, keep_recent_turns: 1 });
    let m = 0;
    while (d.compactions === 0 && m < 40) {
      m += 1;
      step(d, advance(d.state, { type: "user_message", message_id: `m${m}`, text: `turn ${m}`, tools: TOOLS }, NOW));
      if (d.compactions) break;
      const estimate = d.state.run!.estimate!;
      step(
        d,
        advance(
          d.state,
          {
            type: "llm_response",
            call_id: d.state.run!.awaiting_llm!,
            turn: {
              ...calls(["bash", { command: "du" }, `c${m}`]),
              usage: { prompt_tokens: estimate * 2, completion_tokens: 5 },
            },
          },
          NOW,
        ),
      );
      const requestId = d.state.run!.round![0]!.request_id;
      step(
        d,
        advance(
          d.state,
          { type: "tool_result", tool_call_id: `c${m}`, request_id: requestId, outcome: ok("bash", RESULT) },
          NOW,
        ),
      );
      if (d.state.run)
        step(d, advance(d.state, { type: "llm_response", call_id: d.state.run!.awaiting_llm!, turn: text("ok") }, NOW));
    }
    expect(d.state.token_ratio).toBeCloseTo(2, 1);
    expect(m).toBeLessThanOrEqual(Math.ceil(n / 2) + 1);
  });

  it("a failed summary lets the held model call go ahead; a stale or repeated answer changes nothing", () => {
    let state = initialState("conv-1", "pi-1", { context_tokens: 8000, keep_recent_turns: 1 });
    let compact: { call_id: string } | undefined;
    /** advance, and stop at the first step that asks for a summary */
    const go = (event: Parameters<typeof advance>[1]) => {
      if (compact) return;
      const out = advance(state, event, NOW);
      state = out.state;
      compact = only(out.effects, "compact")[0];
    };
    for (let n = 1; n <= 20 && !compact; n++) {
      go({ type: "user_message", message_id: `m${n}`, text: `turn ${n}`, tools: TOOLS });
      go({
        type: "llm_response",
        call_id: state.run!.awaiting_llm!,
        turn: calls(["bash", { command: "du" }, `c${n}`]),
      });
      go({
        type: "tool_result",
        tool_call_id: `c${n}`,
        request_id: state.run?.round?.[0]?.request_id ?? "",
        outcome: ok("bash", RESULT),
      });
      go({ type: "llm_response", call_id: state.run?.awaiting_llm ?? "", turn: text("ok") });
    }
    const d = { state };
    expect(compact).toBeDefined();
    expect(
      only(advance(d.state, { type: "compacted", call_id: "other", summary: "s" }, NOW).effects, "call_llm"),
    ).toHaveLength(0);
    const failed = advance(d.state, { type: "compaction_failed", call_id: compact!.call_id, error: "model down" }, NOW);
    expect(only(failed.effects, "call_llm")).toEqual([
      { type: "call_llm", call_id: d.state.run!.awaiting_llm, with_tools: true },
    ]);
    expect(only(failed.effects, "emit_event")[0]!.event).toMatchObject({ type: "compaction", error: "model down" });
    expect(failed.state.compaction ?? null).toBeNull();
    // The summary arriving after the failure is no longer waited for.
    expect(
      advance(failed.state, { type: "compacted", call_id: compact!.call_id, summary: "late" }, NOW).effects,
    ).toEqual([]);
  });
});

describe("compaction: selectCut", () => {
  const user = (t: string): ChatMessage => ({ role: "user", content: t });
  const big = (t: string): ChatMessage => ({ role: "assistant", content: t.repeat(400) });
  const callMsg = (id: string): ChatMessage => ({
    role: "assistant",
    content: null,
    tool_calls: [{ id, type: "function", function: { name: "bash", arguments: "{}" } }],
  });
  const result = (id: string): ChatMessage => ({ role: "tool", tool_call_id: id, content: "r".repeat(2000) });

  it("never starts the kept part at a tool message, however tight the budget", () => {
    const messages = [user("a"), callMsg("1"), result("1"), result("1b"), callMsg("2"), result("2"), big("z")];
    for (let budget = 0; budget < 2000; budget += 50) {
      const cut = selectCut(messages, { from: 0, keepTurns: 4, budget });
      if (cut) expect(messages[cut.upto]!.role).not.toBe("tool");
    }
  });

  it("keeps the last exchange even when it alone is over the budget", () => {
    const messages = [user("a"), callMsg("1"), result("1"), callMsg("2"), result("2")];
    expect(selectCut(messages, { from: 0, keepTurns: 1, budget: 0 })).toEqual({ upto: 3, pinned: 0 });
  });

  it("is null when there is nothing before the kept turns", () => {
    const messages = [user("a"), big("b"), user("c"), big("d")];
    expect(selectCut(messages, { from: 0, keepTurns: 2, budget: 1_000_000 })).toBeNull();
    expect(selectCut(messages, { from: 0, keepTurns: 1, budget: 1_000_000 })).toEqual({ upto: 2, pinned: null });
  });
});

describe("compaction: the summary request", () => {
  it("is a transcript of the new part after the summary so far, held to half the window", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "water the plants" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", type: "function", function: { name: "gpio_write", arguments: '{"pin":4}' } }],
      },
      { role: "tool", tool_call_id: "c", content: "y".repeat(50_000) },
    ];
    const [system, request] = summaryRequest(messages, 1, 4, "earlier: soil sensor on pin 7", 8000);
    expect(system!.role).toBe("system");
    const body = (request as { content: string }).content;
    expect(body.startsWith(SUMMARY_REQUEST_PREFIX)).toBe(true);
    expect(body).toContain("earlier: soil sensor on pin 7");
    expect(body).toContain("USER: water the plants");
    expect(body).toContain('ASSISTANT called gpio_write {"pin":4}');
    expect(body).not.toContain("sys");
    expect(body.length).toBeLessThan(8000 * 0.5 * 4 + 2000);
  });
});
