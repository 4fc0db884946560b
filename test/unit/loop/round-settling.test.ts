/** How a round's calls settle: the first ending wins, a mixed round is not a failed one, and long results are cut. */
import type { ToolOutcome } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { advance, deadlineKey, type LoopState } from "../../../durable-objects/conversation/core/index.js";
import { answer, NOW, start } from "./advance-helpers.js";
import { calls, fail, ok, only } from "./fixtures.js";

function round(state: LoopState, ...list: [string, unknown, string][]) {
  return answer(state, calls(...list));
}

function result(state: LoopState, id: string, outcome: ToolOutcome) {
  const call = state.run!.round!.find((c) => c.id === id)!;
  return advance(state, { type: "tool_result", tool_call_id: id, request_id: call.request_id, outcome }, NOW);
}

const toolMessages = (s: LoopState) =>
  s.messages.filter((m) => m.role === "tool").map((m) => (m as { content: string }).content);

describe("round: the first ending of a call wins", () => {
  it("a deadline that arrives after the result changes nothing", () => {
    const a = round(start().state, ["bash", { command: "a" }, "c1"], ["bash", { command: "b" }, "c2"]);
    const b = result(a.state, "c1", ok("bash", "done a"));
    const late = advance(b.state, { type: "deadline", key: deadlineKey(b.state.run!.round![0]!) }, NOW + 60_000);
    expect(late.effects).toEqual([]);
    expect(late.state.run!.round![0]!.outcome).toEqual(ok("bash", "done a"));
    const c = result(late.state, "c2", ok("bash", "done b"));
    expect(toolMessages(c.state)).toEqual(["done a", "done b"]);
  });

  it("a result that arrives after the deadline changes nothing", () => {
    const a = round(start().state, ["bash", { command: "sleep 99" }, "c1"], ["bash", { command: "b" }, "c2"]);
    const call = a.state.run!.round![0]!;
    const timedOut = advance(a.state, { type: "deadline", key: deadlineKey(call) }, NOW + 60_000);
    expect(only(timedOut.effects, "cancel_tool")).toEqual([{ type: "cancel_tool", request_id: call.request_id }]);
    const late = result(timedOut.state, "c1", ok("bash", "finished late"));
    expect(late.effects).toEqual([]);
    expect(late.state.run!.round![0]!.outcome).toMatchObject({ status: "error", error_type: "outcome_unknown" });
  });

  it("a result with another request id (an earlier dispatch) is not taken", () => {
    const a = round(start().state, ["bash", { command: "a" }, "c1"]);
    const r = advance(
      a.state,
      { type: "tool_result", tool_call_id: "c1", request_id: "other", outcome: ok("bash", "x") },
      NOW,
    );
    expect(r.effects).toEqual([]);
    expect(r.state.run!.round![0]!.state).toBe("dispatched");
  });
});

describe("round: the error limit counts rounds where every call failed", () => {
  it("a mixed round (one success, one failure) resets the count", () => {
    let s = start({ tool_error_limit: 2 }).state;
    // Round 1: both fail (count 1). Round 2: one succeeds, one fails (count back to 0). Round 3: both fail (count 1).
    for (const [n, outcomes] of [
      [1, [fail("bash", "boom"), fail("bash", "boom")]],
      [2, [ok("bash", "fine"), fail("bash", "boom")]],
      [3, [fail("bash", "boom"), fail("bash", "boom")]],
    ] as const) {
      s = round(s, ["bash", { command: "x" }, `r${n}a`], ["bash", { command: "y" }, `r${n}b`]).state;
      s = result(s, `r${n}a`, outcomes[0]).state;
      const r = result(s, `r${n}b`, outcomes[1]);
      expect(only(r.effects, "call_llm")).toEqual([
        { type: "call_llm", call_id: `msg-1.llm${n + 1}`, with_tools: true },
      ]);
      s = r.state;
    }
    expect(s.run!.consecutive_error_rounds).toBe(1);
    expect(s.run!.stopping).toBeNull();
  });

  it("two failed rounds in a row at a limit of 2 stop the loop with a summary call", () => {
    let s = start({ tool_error_limit: 2 }).state;
    let last: ReturnType<typeof advance> | null = null;
    for (const n of [1, 2]) {
      s = round(s, ["bash", { command: "x" }, `r${n}`]).state;
      last = result(s, `r${n}`, fail("bash", "boom"));
      s = last.state;
    }
    expect(s.run!.stopping).toBe("tool_errors");
    expect(only(last!.effects, "call_llm")).toEqual([{ type: "call_llm", call_id: "msg-1.llm3", with_tools: false }]);
    expect(s.messages.at(-1)!.content).toContain("2 consecutive rounds of tool calls all failed");
  });
});

describe("round: results longer than max_result_chars are cut for the model", () => {
  it("cuts at the limit and says how much was cut", () => {
    const a = round(start({ max_result_chars: 10 }).state, ["bash", { command: "cat big" }, "c1"]);
    const b = result(a.state, "c1", ok("bash", "0123456789ABCDEF"));
    expect(toolMessages(b.state)).toEqual([
      "0123456789\n[truncated: 6 of 16 characters cut; request a smaller range or filter the output]",
    ]);
  });

  it("keeps a result of exactly the limit whole", () => {
    const a = round(start({ max_result_chars: 10 }).state, ["bash", { command: "cat" }, "c1"]);
    expect(toolMessages(result(a.state, "c1", ok("bash", "0123456789")).state)).toEqual(["0123456789"]);
  });
});
