/** When a model call is held back for a summary, where the cut goes, and what follows the summary's answer. */
import type { ToolSpec } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import {
  estimateTokens,
  messageTokens,
  modelMessages,
  toolsTokens,
} from "../../../durable-objects/conversation/core/compaction.js";
import {
  type Advanced,
  advance,
  type Effect,
  initialState,
  type LoopConfig,
  type LoopState,
} from "../../../durable-objects/conversation/core/index.js";
import { only, spec, TOOLS, text } from "./fixtures.js";

const NOW = 1_700_000_000_000;

/** One finished turn: a user message of `chars` characters and a text answer as long. */
function turn(state: LoopState, n: number, chars = 400, usage?: { prompt_tokens: number }): LoopState {
  const start = advance(
    state,
    { type: "user_message", message_id: `m${n}`, text: `${n} `.padEnd(chars, "u"), tools: TOOLS },
    NOW,
  );
  expect(only(start.effects, "compact")).toEqual([]);
  const answer = { ...text(`${n} `.padEnd(chars, "a")), usage: usage && { ...usage, completion_tokens: 1 } };
  const done = advance(
    start.state,
    { type: "llm_response", call_id: start.state.run!.awaiting_llm!, turn: answer },
    NOW,
  );
  expect(done.state.run).toBeNull();
  return done.state;
}

/** `turns` turns under a window too large to compact, then the window set to `window`. */
function history(turns: number, config: Partial<LoopConfig> = {}, window = 1_000_000): LoopState {
  let state = initialState("conv-1", "pi-1", { context_tokens: 1_000_000, keep_recent_turns: 1, ...config });
  for (let n = 1; n <= turns; n++) state = turn(state, n);
  return { ...state, config: { ...state.config, context_tokens: window } };
}

const ask = (state: LoopState, n: number, tools: ToolSpec[] = TOOLS): Advanced =>
  advance(state, { type: "user_message", message_id: `m${n}`, text: `question ${n}`, tools }, NOW);

/** The estimate the next model call would have, without compacting. */
function estimateOfNext(state: LoopState, n: number): number {
  return ask({ ...state, config: { ...state.config, context_tokens: 1_000_000 } }, n).state.run!.estimate!;
}

describe("compaction trigger: the threshold", () => {
  it("holds the call back only when the estimate is over compact_at of the window, not at it", () => {
    const state = history(6, { compact_at: 0.5 });
    const estimate = estimateOfNext(state, 7);
    const at = ask({ ...state, config: { ...state.config, context_tokens: estimate * 2 } }, 7);
    expect(only(at.effects, "compact")).toEqual([]);
    expect(only(at.effects, "call_llm")).toHaveLength(1);
    const over = ask({ ...state, config: { ...state.config, context_tokens: estimate * 2 - 1 } }, 7);
    expect(only(over.effects, "call_llm")).toEqual([]);
    expect(only(over.effects, "compact")).toEqual([
      { type: "compact", call_id: "m7.llm1.compact", from: 0, upto: 12, context_tokens: estimate * 2 - 1 },
    ]);
    expect(over.state.run!.compacting).toMatchObject({ call_id: "m7.llm1.compact", upto: 12, with_tools: true });
  });

  it("summarizes from the first message when there is no system prompt", () => {
    const state = history(6);
    expect(state.messages[0]!.role).toBe("user");
    const out = ask({ ...state, config: { ...state.config, context_tokens: 1000 } }, 7);
    expect(only(out.effects, "compact")[0]).toMatchObject({ from: 0, upto: 12 });
    const withSystem = history(6, { system_prompt: "You are helpful." });
    const out2 = ask({ ...withSystem, config: { ...withSystem.config, context_tokens: 1000 } }, 7);
    expect(only(out2.effects, "compact")[0]).toMatchObject({ from: 1, upto: 13 });
  });

  it("lets a call over the threshold go ahead when there is nothing before its own turn to summarize", () => {
    const state = initialState("conv-1", "pi-1", { context_tokens: 100, system_prompt: "You are helpful." });
    const out = advance(state, { type: "user_message", message_id: "m1", text: "x".repeat(2000), tools: TOOLS }, NOW);
    expect(only(out.effects, "compact")).toEqual([]);
    expect(only(out.effects, "call_llm")).toHaveLength(1);
    expect(out.state.run!.compacting).toBeNull();
  });
});

describe("compaction trigger: only the run's own model call", () => {
  it("asks for no summary when a message is queued behind a run over the threshold", () => {
    const state = history(6);
    const waiting = ask(state, 7).state;
    const small = { ...waiting, config: { ...waiting.config, context_tokens: 1000 } };
    const queued = advance(small, { type: "user_message", message_id: "m8", text: "and then?", tools: TOOLS }, NOW);
    expect(only(queued.effects, "compact")).toEqual([]);
    expect(only(queued.effects, "call_llm")).toEqual([]);
    expect(queued.state.queue.map((q) => q.message_id)).toEqual(["m8"]);
    expect(queued.state.run!.compacting).toBeNull();
  });
});

describe("compaction trigger: how much is kept", () => {
  it("keeps the latest turns that fit half the threshold with the system prompt and tool list, at the calibrated ratio", () => {
    // A large system prompt and tool list, and a provider counting twice our estimate: each must come off the budget.
    const tools = [spec("bash", { command: { type: "string" } }, ["command"])];
    tools[0]!.description = "d".repeat(4000);
    const window = 40_000;
    let state = initialState("conv-1", "pi-1", {
      context_tokens: window,
      keep_recent_turns: 100,
      system_prompt: "s".repeat(2000),
    });
    const go = (n: number): Advanced =>
      advance(state, { type: "user_message", message_id: `m${n}`, text: `${n} `.padEnd(400, "u"), tools }, NOW);
    let compact: Extract<Effect, { type: "compact" }> | undefined;
    for (let n = 1; n <= 200 && !compact; n++) {
      const start = go(n);
      compact = only(start.effects, "compact")[0];
      if (compact) {
        state = start.state;
        break;
      }
      const usage = n === 1 ? { prompt_tokens: start.state.run!.estimate! * 2, completion_tokens: 1 } : undefined;
      state = advance(
        start.state,
        {
          type: "llm_response",
          call_id: start.state.run!.awaiting_llm!,
          turn: { ...text(`${n} `.padEnd(400, "a")), usage },
        },
        NOW,
      ).state;
    }
    expect(compact).toBeDefined();
    expect(state.token_ratio).toBe(2);
    const fixed = messageTokens(state.messages[0]!) + toolsTokens(tools);
    const half = window * 0.75 * 0.5;
    const kept = (upto: number) => 2 * (estimateTokens(state.messages, upto) + fixed);
    expect(kept(compact!.upto)).toBeLessThanOrEqual(half);
    // One exchange more would not have fit.
    expect(kept(compact!.upto - 1)).toBeGreaterThan(half);
    expect(state.messages[compact!.upto]!.role).toBe("user");
  });
});

describe("compaction trigger: the summary's answer", () => {
  /** A conversation whose next call is held back for a summary. */
  function held(config: Partial<LoopConfig> = {}): { state: LoopState; compact: Extract<Effect, { type: "compact" }> } {
    const state = history(6, { ...config, context_tokens: 1_000_000 });
    const out = ask({ ...state, config: { ...state.config, context_tokens: 1000 } }, 7);
    const compact = only(out.effects, "compact")[0]!;
    expect(compact).toBeDefined();
    return { state: out.state, compact };
  }

  it("shrinks the view, reports the compaction, and makes the held call with its tools", () => {
    const { state, compact } = held({ system_prompt: "You are helpful." });
    const summary = "s".repeat(1000);
    const out = advance(state, { type: "compacted", call_id: compact.call_id, summary }, 30_000);
    const c = out.state.compaction!;
    expect(c).toMatchObject({ upto: compact.upto, pinned: null, at: 30_000 });
    // 1,000 tokens hold an 800-character summary: the summary is cut for this window, and no todos are added.
    expect(c.summary).toBe(`${"s".repeat(800)} […]`);
    const after = estimateTokens(modelMessages(out.state)) + toolsTokens(TOOLS);
    expect(c.tokens_after).toBe(after);
    expect(out.state.run!.estimate).toBe(after);
    expect(out.effects).toEqual([
      {
        type: "emit_event",
        event: {
          type: "compaction",
          messages_summarized: compact.upto - 1,
          tokens_before: c.tokens_before,
          tokens_after: after,
        },
      },
      { type: "call_llm", call_id: state.run!.awaiting_llm, with_tools: true },
    ]);
    expect(out.state.run!.compacting).toBeNull();
  });

  it("counts every summarized message when there is no system prompt", () => {
    const { state, compact } = held();
    const out = advance(state, { type: "compacted", call_id: compact.call_id, summary: "s" }, NOW);
    const event = only(out.effects, "emit_event")[0]!.event;
    expect(event).toMatchObject({ type: "compaction", messages_summarized: compact.upto });
  });

  it("keeps a summary as long as the window allows", () => {
    const { state, compact } = held();
    const window = 20_000; // an 8,000-character summary
    const s = { ...state, config: { ...state.config, context_tokens: window } };
    const summary = "s".repeat(5000);
    const out = advance(s, { type: "compacted", call_id: compact.call_id, summary }, NOW);
    expect(out.state.compaction!.summary).toBe(summary);
  });

  it("is ignored when no run or no summary is waited for, and a failure for another summary changes nothing", () => {
    const idle = initialState("conv-1", "pi-1", { context_tokens: 1000 });
    expect(advance(idle, { type: "compacted", call_id: "x.compact", summary: "s" }, NOW).effects).toEqual([]);
    expect(advance(idle, { type: "compaction_failed", call_id: "x.compact", error: "e" }, NOW).effects).toEqual([]);
    const running = ask(history(1), 2).state;
    expect(running.run!.compacting).toBeNull();
    expect(
      advance(running, { type: "compaction_failed", call_id: "m2.llm1.compact", error: "e" }, NOW).effects,
    ).toEqual([]);
    const { state, compact } = held();
    const other = advance(state, { type: "compaction_failed", call_id: `${compact.call_id}x`, error: "e" }, NOW);
    expect(other.effects).toEqual([]);
    expect(other.state.run!.compacting).not.toBeNull();
  });

  it("after a failure reports the error with no tokens saved and makes the held call", () => {
    const { state, compact } = held();
    const out = advance(state, { type: "compaction_failed", call_id: compact.call_id, error: "model down" }, NOW);
    const before = state.run!.compacting!.tokens_before;
    expect(out.effects).toEqual([
      {
        type: "emit_event",
        event: {
          type: "compaction",
          messages_summarized: 0,
          tokens_before: before,
          tokens_after: before,
          error: "model down",
        },
      },
      { type: "call_llm", call_id: state.run!.awaiting_llm, with_tools: true },
    ]);
  });
});
