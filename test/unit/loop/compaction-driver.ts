// The compaction tests' driver: a conversation of turns with 4 KB results, summaries answered at once.
import { expect } from "vitest";
import {
  type Advanced,
  advance,
  type ChatMessage,
  initialState,
  type LoopConfig,
  type LoopState,
} from "../../../durable-objects/conversation/core/index.js";
import { calls, ok, only, TOOLS, text } from "./fixtures.js";

export const NOW = 1_700_000_000_000;
export const RESULT = "x".repeat(4000);

/** Every assistant tool call in `view` has its result, and every tool message follows its call. */
export function assertPaired(view: ChatMessage[]): void {
  const open = new Set<string>();
  for (const m of view) {
    if (m.role === "assistant") {
      expect(open.size).toBe(0);
      for (const c of m.tool_calls ?? []) open.add(c.id);
    } else if (m.role === "tool") {
      expect(open.has(m.tool_call_id)).toBe(true);
      open.delete(m.tool_call_id);
    } else expect(open.size).toBe(0);
  }
  expect(open.size).toBe(0);
}

export type Driver = {
  state: LoopState;
  compactions: number;
  summaryInputs: { from: number; upto: number }[];
  /** called with every step's state, as the shell commits it (storage tests save it) */
  committed?: (state: LoopState) => void;
};

/** Feed one step; a `compact` effect is answered at once with a short summary. */
export function step(d: Driver, out: Advanced): Advanced {
  d.state = out.state;
  d.committed?.(d.state);
  const compact = only(out.effects, "compact")[0];
  if (!compact) return out;
  d.compactions += 1;
  d.summaryInputs.push({ from: compact.from, upto: compact.upto });
  const done = advance(
    d.state,
    {
      type: "compacted",
      call_id: compact.call_id,
      summary: `summary #${d.compactions}`,
      open_todos: ["[pending] water"],
    },
    NOW,
  );
  d.state = done.state;
  d.committed?.(d.state);
  return done;
}

/** One turn: a user message, a tool call with a 4 KB result, a text answer. */
export function turn(d: Driver, n: number): void {
  step(d, advance(d.state, { type: "user_message", message_id: `m${n}`, text: `turn ${n}`, tools: TOOLS }, NOW));
  const call = `c${n}`;
  step(
    d,
    advance(
      d.state,
      { type: "llm_response", call_id: d.state.run!.awaiting_llm!, turn: calls(["bash", { command: "du" }, call]) },
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
  step(
    d,
    advance(d.state, { type: "llm_response", call_id: d.state.run!.awaiting_llm!, turn: text(`answer ${n}`) }, NOW),
  );
  expect(d.state.run).toBeNull();
}

export function driver(config: Partial<LoopConfig>): Driver {
  return {
    state: initialState("conv-1", "pi-1", { system_prompt: "You are helpful.", ...config }),
    compactions: 0,
    summaryInputs: [],
  };
}
