/**
 * Which effect of a step compaction holds back, called directly with the effects a step could end with,
 * and the estimates it keeps per object. Each test names the mutant of compaction.ts that it fails with.
 */
import { describe, expect, it } from "vitest";
import { beforeModelCall, messageTokens, toolsTokens } from "../../../durable-objects/conversation/core/compaction.js";
import {
  advance,
  type ChatMessage,
  type Effect,
  initialState,
  type LoopEvent,
  type LoopState,
} from "../../../durable-objects/conversation/core/index.js";
import { spec, TOOLS, text } from "./fixtures.js";

const NOW = 1_700_000_000_000;

/** Four finished turns of 400-character messages and a fifth question waiting for its model call, in a small window. */
function waiting(): LoopState {
  let state = initialState("conv-1", "pi-1", { context_tokens: 1_000_000, keep_recent_turns: 1 });
  for (let n = 1; n <= 5; n++) {
    const asked = advance(
      state,
      { type: "user_message", message_id: `m${n}`, text: `${n} `.padEnd(400, "u"), tools: TOOLS },
      NOW,
    );
    if (n === 5) return { ...asked.state, config: { ...asked.state.config, context_tokens: 200 } };
    const turn = text(`${n} `.padEnd(400, "a"));
    state = advance(asked.state, { type: "llm_response", call_id: asked.state.run!.awaiting_llm!, turn }, NOW).state;
  }
  throw new Error("unreachable");
}

const llm = (call_id: string): Effect => ({ type: "call_llm", call_id, with_tools: false });
const started: Effect = { type: "emit_event", event: { type: "message_start", message_id: "m5", text: "5" } };
const asked: LoopEvent = { type: "user_message", message_id: "m5", text: "5", tools: TOOLS };

describe("compaction holds back the model call the run waits for", () => {
  it("even when it is the step's only effect", () => {
    // Mutant: `index < 0` → `index <= 0` left a call_llm at index 0 uncompacted.
    const state = waiting();
    const effects = [llm(state.run!.awaiting_llm!)];
    beforeModelCall(state, effects, asked);
    expect(effects.map((e) => e.type)).toEqual(["compact"]);
    expect(effects[0]).toMatchObject({ call_id: `${state.run!.awaiting_llm}.compact` });
  });

  it("and no other call_llm, nor another effect that carries its id", () => {
    // Mutants: `e.call_id === run.awaiting_llm` → `true`, the `&&` → `||`, and `e.type === "call_llm"` → `true`.
    const state = waiting();
    const id = state.run!.awaiting_llm!;
    const other: Effect = { type: "compact", call_id: id, from: 0, upto: 0, context_tokens: 1 };
    const effects = [started, other, llm("m4.llm1"), llm(id)];
    beforeModelCall(state, effects, asked);
    expect(effects.slice(0, 3)).toEqual([started, other, llm("m4.llm1")]);
    expect(effects[3]).toMatchObject({ type: "compact", call_id: `${id}.compact`, context_tokens: 200 });
  });

  it("but not the call that follows a summary, however large the view still is", () => {
    // Mutants: `event.type === "compacted"` → `false`, and `"compacted"` → `""`.
    const state = waiting();
    const effects = [started, llm(state.run!.awaiting_llm!)];
    beforeModelCall(state, effects, { type: "compacted", call_id: "m5.llm1.compact", summary: "s" });
    expect(effects).toEqual([started, llm(state.run!.awaiting_llm!)]);
    expect(state.run!.compacting).toBeNull();
  });
});

describe("compaction holds nothing back", () => {
  it("while a summary is under way, or with no run", () => {
    // Mutant: `!run?.awaiting_llm || run.compacting` → `false`.
    const state = waiting();
    const id = state.run!.awaiting_llm!;
    const pending = { call_id: "earlier.compact", upto: 1, pinned: null, tokens_before: 1, with_tools: false };
    state.run!.compacting = pending;
    const effects = [started, llm(id)];
    beforeModelCall(state, effects, asked);
    expect(effects).toEqual([started, llm(id)]);
    expect(state.run!.compacting).toBe(pending);
    const idle = { ...waiting(), run: null };
    const alone = [llm(id)];
    beforeModelCall(idle, alone, asked);
    expect(alone).toEqual([llm(id)]);
  });
});

describe("estimates", () => {
  it("of a message are made once per message object (messages never change once appended)", () => {
    // Mutant: `n === undefined` → `true` in messageTokens measured the message again on every call.
    const m: ChatMessage = { role: "user", content: "x".repeat(40) };
    expect(messageTokens(m)).toBe(10 + 4);
    m.content = "x".repeat(4000);
    expect(messageTokens(m)).toBe(14);
  });

  it("count an assistant's tool calls and no other message's", () => {
    // Mutant: `m.role === "assistant"` → `true` counted a `tool_calls` key on a user message too.
    const call = { id: "c1", type: "function" as const, function: { name: "bash", arguments: "{}" } };
    const assistant: ChatMessage = { role: "assistant", content: null, tool_calls: [call] };
    expect(messageTokens(assistant)).toBe(Math.ceil((4 + 2 + 24) / 4) + 4);
    // A message read back from storage is typed by its role; a stray key on it is not sent as a call.
    const user = { role: "user" as const, content: "", tool_calls: [call] };
    expect(messageTokens(user)).toBe(4);
  });

  it("of the tool list are its names, descriptions and parameters, made once per list", () => {
    // Mutants: the `[t.name, t.description, t.parameters]` entry → `[]` or `undefined`, and `n === undefined` → `true`.
    const tools = [spec("bash", { command: { type: "string" } })];
    const json = JSON.stringify([["bash", "bash tool", tools[0]!.parameters]]);
    expect(toolsTokens(tools)).toBe(Math.ceil(json.length / 4));
    tools.push(spec("read", { path: { type: "string" } }));
    expect(toolsTokens(tools)).toBe(Math.ceil(json.length / 4));
  });
});
