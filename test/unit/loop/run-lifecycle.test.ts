/** A run from its start event to its reply: budgets at their exact edges, the stop notes, metrics and the replies kept. */
import { describe, expect, it } from "vitest";
import {
  advance,
  deadlineKey,
  initialState,
  isCallDeadline,
  type LoopConfig,
  type LoopState,
} from "../../../durable-objects/conversation/core/index.js";
import { NOW } from "./advance-helpers.js";
import { calls, fail, ok, only, TOOLS, text } from "./fixtures.js";

function begin(config: Partial<LoopConfig> = {}, extra: object = {}, state?: LoopState, id = "m1") {
  return advance(
    state ?? initialState("conv-1", "pi-1", config),
    { type: "user_message", message_id: id, text: "go", tools: TOOLS, ...extra },
    NOW,
  );
}

const llm = (s: LoopState) => s.run!.awaiting_llm!;

describe("run: start and end", () => {
  it("announces the message, with the schedule whose run it is", () => {
    expect(only(begin({}, { schedule_id: "s1" }).effects, "emit_event")[0]!.event).toEqual({
      type: "message_start",
      message_id: "m1",
      text: "go",
      schedule_id: "s1",
    });
    expect(only(begin().effects, "emit_event")[0]!.event).toEqual({
      type: "message_start",
      message_id: "m1",
      text: "go",
    });
  });

  it("clears the wall-time budget's deadline when the run ends, and sets none without a budget", () => {
    const a = begin({ max_wall_ms: 1_000 });
    const b = advance(a.state, { type: "llm_response", call_id: llm(a.state), turn: text("hi") }, NOW + 10);
    expect(only(b.effects, "clear_deadline")).toEqual([{ type: "clear_deadline", key: "budget:m1" }]);
    const c = begin();
    expect(only(c.effects, "set_deadline")).toEqual([]);
    const d = advance(c.state, { type: "llm_response", call_id: llm(c.state), turn: text("hi") }, NOW);
    expect(only(d.effects, "clear_deadline")).toEqual([]);
  });

  it("keeps the last 20 replies", () => {
    let s = initialState("conv-1", "pi-1");
    for (let i = 1; i <= 21; i++) {
      s = begin({}, {}, s, `m${i}`).state;
      s = advance(s, { type: "llm_response", call_id: llm(s), turn: text(`r${i}`) }, NOW).state;
      expect(s.replies).toHaveLength(Math.min(i, 20));
    }
    expect(s.replies[0]!.message_id).toBe("m2");
    expect(s.replies.at(-1)!.message_id).toBe("m21");
  });

  it("counts the failed calls in the reply's metrics", () => {
    const a = begin();
    const b = advance(
      a.state,
      {
        type: "llm_response",
        call_id: llm(a.state),
        turn: calls(["bash", { command: "a" }, "c1"], ["bash", { command: "b" }, "c2"]),
      },
      NOW,
    );
    let s = advance(
      b.state,
      { type: "tool_result", tool_call_id: "c1", request_id: "m1.1.0", outcome: ok("bash", "x") },
      NOW,
    ).state;
    s = advance(
      s,
      { type: "tool_result", tool_call_id: "c2", request_id: "m1.1.1", outcome: fail("bash", "y") },
      NOW,
    ).state;
    const r = advance(s, { type: "llm_response", call_id: llm(s), turn: text("done") }, NOW);
    expect(only(r.effects, "reply")[0]!.reply.metrics).toMatchObject({ tool_calls: 2, tool_errors: 1 });
  });
});

describe("run: budgets at their edges", () => {
  it("a run that has used exactly its token budget is over it", () => {
    const a = begin({ max_tokens: 100 });
    const turn = { ...calls(["bash", { command: "x" }, "c1"]), usage: { prompt_tokens: 60, completion_tokens: 40 } };
    const b = advance(a.state, { type: "llm_response", call_id: llm(a.state), turn }, NOW);
    expect(only(b.effects, "dispatch_tool")).toEqual([]);
    expect(b.state.messages.at(-1)!.role).toBe("user");
    expect(b.state.messages.at(-1)!.content).toBe(
      "[edgeloop] The tool loop has stopped: the conversation's budget (100 tokens) ran out. No more tools can be called. Summarise for the user what was done, what the results were, and what is left.",
    );
    const under = advance(
      a.state,
      {
        type: "llm_response",
        call_id: llm(a.state),
        turn: { ...turn, usage: { prompt_tokens: 60, completion_tokens: 39 } },
      },
      NOW,
    );
    expect(only(under.effects, "dispatch_tool")).toHaveLength(1);
  });

  it("a run at exactly its wall time is over it; the note names both budgets", () => {
    const a = begin({ max_wall_ms: 1_000, max_tokens: 5_000 });
    const turn = calls(["bash", { command: "x" }, "c1"]);
    const at = advance(a.state, { type: "llm_response", call_id: llm(a.state), turn }, NOW + 1_000);
    expect(only(at.effects, "dispatch_tool")).toEqual([]);
    expect(at.state.messages.at(-1)!.content).toContain("the conversation's budget (5000 tokens, 1000 ms) ran out");
    const before = advance(a.state, { type: "llm_response", call_id: llm(a.state), turn }, NOW + 999);
    expect(only(before.effects, "dispatch_tool")).toHaveLength(1);
  });

  it("a wall-time budget alone is named alone", () => {
    const a = begin({ max_wall_ms: 1_000 });
    const at = advance(
      a.state,
      { type: "llm_response", call_id: llm(a.state), turn: calls(["bash", { command: "x" }, "c1"]) },
      NOW + 5_000,
    );
    expect(at.state.messages.at(-1)!.content).toContain("the conversation's budget (1000 ms) ran out");
  });
});

describe("run: the reply after a stop", () => {
  it("after the error limit the reply carries a note saying why", () => {
    let s = begin({ tool_error_limit: 1 }).state;
    s = advance(s, { type: "llm_response", call_id: llm(s), turn: calls(["bash", { command: "x" }, "c1"]) }, NOW).state;
    s = advance(
      s,
      { type: "tool_result", tool_call_id: "c1", request_id: "m1.1.0", outcome: fail("bash", "no") },
      NOW,
    ).state;
    const r = advance(s, { type: "llm_response", call_id: llm(s), turn: text("It failed.") }, NOW);
    expect(only(r.effects, "reply")[0]!.reply).toMatchObject({
      stop_reason: "tool_errors",
      reply: "It failed.\n\n(The tool loop stopped because 1 consecutive rounds of tool calls all failed.)",
    });
  });

  it("citations name each tool that succeeded, once, and none that failed", () => {
    let s = begin({ citations: true }).state;
    s = advance(
      s,
      {
        type: "llm_response",
        call_id: llm(s),
        turn: calls(
          ["bash", { command: "a" }, "c1"],
          ["read", { path: "/a" }, "c2"],
          ["git_log", {}, "c3"],
          ["bash", { command: "b" }, "c4"],
        ),
      },
      NOW,
    ).state;
    for (const [id, i, outcome] of [
      ["c1", 0, ok("bash", "x")],
      ["c2", 1, ok("read", "y")],
      ["c3", 2, fail("git_log", "z")],
      ["c4", 3, ok("bash", "w")],
    ] as const)
      s = advance(s, { type: "tool_result", tool_call_id: id, request_id: `m1.1.${i}`, outcome }, NOW).state;
    const r = advance(s, { type: "llm_response", call_id: llm(s), turn: text("Done.") }, NOW);
    expect(only(r.effects, "reply")[0]!.reply.reply).toBe("Done.\n\nSources: bash, read");
  });
});

describe("run: deadline keys", () => {
  it("a call's deadline key is told apart from approval and budget keys", () => {
    const key = deadlineKey({ request_id: "m1.1.0" });
    expect(key).toBe("tool:m1.1.0");
    expect(isCallDeadline(key)).toBe(true);
    expect(isCallDeadline("approval:m1.1.0")).toBe(false);
    expect(isCallDeadline("budget:m1")).toBe(false);
    expect(isCallDeadline("x.tool:")).toBe(false);
  });
});
