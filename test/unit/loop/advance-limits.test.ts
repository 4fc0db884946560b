/** advance(): the iteration cap, the error limit, parallel calls, duplicate results and deadlines. */
import { describe, expect, it } from "vitest";
import { advance } from "../../../durable-objects/conversation/core/index.js";
import { answer, llmCallId, NOW, start } from "./advance-helpers.js";
import { calls, fail, ok, only, text } from "./fixtures.js";

describe("loop core: advance()", () => {
  it("stops at max_iterations with one last call without tools, and the reply says why", () => {
    let s = start({ max_iterations: 10 }).state;
    let dispatched = 0;
    for (let i = 0; i < 10; i++) {
      const r = answer(s, calls(["bash", { command: `echo ${i}` }, `c${i}`]));
      const d = only(r.effects, "dispatch_tool")[0]!;
      dispatched++;
      const after = advance(
        r.state,
        { type: "tool_result", tool_call_id: d.tool_call_id, request_id: d.request_id, outcome: ok("bash", `${i}`) },
        NOW,
      );
      s = after.state;
      const next = only(after.effects, "call_llm")[0]!;
      expect(next.with_tools).toBe(i < 9);
    }
    expect(dispatched).toBe(10);
    // The model tries yet another tool call; the loop does not run it.
    const end = advance(
      s,
      {
        type: "llm_response",
        call_id: llmCallId(s),
        turn: { content: "Done so far.", toolCalls: [{ id: "x", name: "bash", arguments: "{}" }] },
      },
      NOW,
    );
    expect(only(end.effects, "dispatch_tool")).toHaveLength(0);
    const reply = only(end.effects, "reply")[0]!.reply;
    expect(reply.stop_reason).toBe("max_iterations");
    expect(reply.reply).toContain("limit of 10 tool rounds");
    expect(reply.iterations).toBe(11);
  });

  it("stops after tool_error_limit consecutive all-failed rounds", () => {
    let s = start({ tool_error_limit: 3 }).state;
    for (let i = 0; i < 3; i++) {
      const r = answer(s, calls(["bash", { command: "false" }, `c${i}`]));
      const d = only(r.effects, "dispatch_tool")[0]!;
      s = advance(
        r.state,
        {
          type: "tool_result",
          tool_call_id: d.tool_call_id,
          request_id: d.request_id,
          outcome: fail("bash", "exit 1"),
        },
        NOW,
      ).state;
    }
    expect(s.run?.stopping).toBe("tool_errors");
    const end = answer(s, text("Everything failed."));
    expect(only(end.effects, "reply")[0]!.reply).toMatchObject({ stop_reason: "tool_errors", status: "completed" });
  });

  it("a success resets the consecutive error count", () => {
    let s = start({ tool_error_limit: 2 }).state;
    const outcomes = [fail("bash", "x"), ok("bash", "y"), fail("bash", "z")];
    outcomes.forEach((outcome, i) => {
      const r = answer(s, calls(["bash", { command: "c" }, `c${i}`]));
      const d = only(r.effects, "dispatch_tool")[0]!;
      s = advance(
        r.state,
        { type: "tool_result", tool_call_id: d.tool_call_id, request_id: d.request_id, outcome },
        NOW,
      ).state;
    });
    expect(s.run?.stopping).toBeNull();
  });

  it("dispatches parallel calls up to max_parallel and appends results in call order", () => {
    const a = start({ max_parallel: 2 });
    const b = answer(
      a.state,
      calls(["bash", { command: "a" }, "c1"], ["bash", { command: "b" }, "c2"], ["bash", { command: "c" }, "c3"]),
    );
    const first = only(b.effects, "dispatch_tool");
    expect(first.map((d) => d.tool_call_id)).toEqual(["c1", "c2"]);
    // c2 finishes first: c3 may start, and nothing is appended yet.
    const c = advance(
      b.state,
      { type: "tool_result", tool_call_id: "c2", request_id: first[1]!.request_id, outcome: ok("bash", "B") },
      NOW,
    );
    const third = only(c.effects, "dispatch_tool");
    expect(third.map((d) => d.tool_call_id)).toEqual(["c3"]);
    expect(only(c.effects, "call_llm")).toHaveLength(0);
    const d = advance(
      c.state,
      { type: "tool_result", tool_call_id: "c3", request_id: third[0]!.request_id, outcome: ok("bash", "C") },
      NOW,
    );
    const e = advance(
      d.state,
      { type: "tool_result", tool_call_id: "c1", request_id: first[0]!.request_id, outcome: ok("bash", "A") },
      NOW,
    );
    const toolContents = e.state.messages
      .filter((m) => m.role === "tool")
      .map((m) => (m as { content: string }).content);
    expect(toolContents).toEqual(["A", "B", "C"]);
    expect(only(e.effects, "call_llm")).toHaveLength(1);
  });

  it("ignores a duplicate or late result: a tool result counts once", () => {
    const a = start();
    const b = answer(a.state, calls(["bash", { command: "a" }, "c1"], ["bash", { command: "b" }, "c2"]));
    const [d1] = only(b.effects, "dispatch_tool");
    const c = advance(
      b.state,
      { type: "tool_result", tool_call_id: "c1", request_id: d1!.request_id, outcome: ok("bash", "first") },
      NOW,
    );
    const dup = advance(
      c.state,
      { type: "tool_result", tool_call_id: "c1", request_id: d1!.request_id, outcome: ok("bash", "second") },
      NOW,
    );
    expect(dup.effects).toEqual([]);
    expect(dup.state).toEqual(c.state);
    const wrongRequest = advance(
      c.state,
      { type: "tool_result", tool_call_id: "c2", request_id: "someone-else", outcome: ok("bash", "x") },
      NOW,
    );
    expect(wrongRequest.effects).toEqual([]);
  });

  it("a device call's own deadline, without word from the hub, is outcome_unknown and cancels the command", () => {
    const a = start();
    const b = answer(a.state, calls(["bash", { command: "sleep 600" }, "c1"]));
    const key = only(b.effects, "set_deadline")[0]!.key;
    const c = advance(b.state, { type: "deadline", key }, NOW + 50_000);
    expect(only(c.effects, "cancel_tool")).toHaveLength(1);
    const msg = (c.state.messages.at(-1) as { content: string }).content;
    expect(msg).toMatch(/^Error: The outcome of 'bash' is unknown: .*Command: 'sleep 600'\.\nIt may have run/);
    expect(msg).not.toContain("timed out");
    expect(only(c.effects, "call_llm")).toHaveLength(1);
  });
});
