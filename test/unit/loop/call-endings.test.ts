import type { ToolOutcome } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { advance, type LoopState } from "../../../durable-objects/conversation/core/index.js";
import { toolMessageText } from "../../../durable-objects/conversation/core/tool-messages.js";
import { answer, NOW, start } from "./advance-helpers.js";
import { calls, ok, only, text } from "./fixtures.js";

/** docs/architecture.md#call-endings and #late-results, as the loop core applies them. */

const notSent: ToolOutcome = {
  status: "error",
  tool: "bash",
  error: "the command was not sent: the device was offline until the call's deadline (30000ms)",
  error_type: "not_sent",
};
const unknown: ToolOutcome = {
  status: "error",
  tool: "bash",
  error: "the device took the command, but no result came back within 30000ms",
  error_type: "outcome_unknown",
};
const deviceTimeout: ToolOutcome = {
  status: "error",
  tool: "bash",
  error: "Tool 'bash' timed out after 30000ms",
  error_type: "timeout",
};

function lastMessage(state: LoopState): string {
  return (state.messages.at(-1) as { content: string }).content;
}

/** A run whose one bash call (c1) is dispatched; returns that state. */
function dispatched(config = {}): LoopState {
  const a = start(config);
  return answer(a.state, calls(["bash", { command: "git commit" }, "c1"])).state;
}

function ended(outcome: ToolOutcome, config = {}): ReturnType<typeof advance> {
  const b = dispatched(config);
  return advance(
    b,
    { type: "tool_result", tool_call_id: "c1", request_id: b.run!.round![0]!.request_id, outcome },
    NOW,
  );
}

describe("the three endings of a device call without a result, as the model reads them", () => {
  it("not_sent: it did not run, and the model may call it again", () => {
    const text = toolMessageText(notSent, { command: "git commit" }, "pi-1");
    expect(text).toBe(
      "Error: Tool 'bash' did not run: the command was not sent: the device was offline until the call's deadline (30000ms).\n" +
        "The command never reached the device, so nothing was changed. You may call it again (the device may still be offline), or explain to the user.",
    );
  });

  it("outcome_unknown: it may have run, must not be repeated blindly, a late result is announced", () => {
    const text = toolMessageText(unknown, { command: "git commit" }, "pi-1");
    expect(text.split("\n")).toEqual([
      "Error: The outcome of 'bash' is unknown: the device took the command, but no result came back within 30000ms. Command: 'git commit'.",
      "It may have run, in full or in part. Do not repeat it blindly: first check whether it took effect (read the state it changes), or explain to the user.",
      "If the device sends its result later, you will be told at your next turn.",
    ]);
  });

  it("outcome_unknown of an approved call: the model must ask the user before calling it again", () => {
    const text = toolMessageText(unknown, { command: "git commit" }, "pi-1", true);
    expect(text.split("\n").at(-1)).toBe("It needed approval: do not call it again without asking the user.");
  });

  it("timeout (the device killed it): the model may retry with a shorter timeout", () => {
    expect(toolMessageText(deviceTimeout, { command: "sleep 9" }, "pi-1")).toBe(
      "Error: Tool 'bash' timed out after 30000ms. Command: 'sleep 9'.\nTry again with a shorter timeout or explain to the user.",
    );
  });

  it("an approval-required call that ended outcome_unknown is not dispatched again: the model decides", () => {
    const config = { policies: { bash: "requires_approval" as const } };
    const a = start(config);
    const b = answer(a.state, calls(["bash", { command: "git commit" }, "c1"]));
    const c = advance(b.state, { type: "approval", tool_call_id: "c1", approve: true }, NOW);
    expect(only(c.effects, "dispatch_tool")).toHaveLength(1);
    const requestId = c.state.run!.round![0]!.request_id;
    const d = advance(
      c.state,
      { type: "tool_result", tool_call_id: "c1", request_id: requestId, outcome: unknown },
      NOW,
    );
    expect(only(d.effects, "dispatch_tool")).toEqual([]);
    expect(only(d.effects, "call_llm")).toHaveLength(1);
    expect(lastMessage(d.state)).toContain("do not call it again without asking the user");
    // A repeat of the ending (the hub redelivers) changes nothing either.
    const e = advance(
      d.state,
      { type: "tool_result", tool_call_id: "c1", request_id: requestId, outcome: unknown },
      NOW,
    );
    expect(e.effects).toEqual([]);
  });
});

describe("late results", () => {
  it("a late result is kept, shown as an event, and given to the model at its next call", () => {
    const c = ended(unknown);
    const requestId = `${c.state.run!.message_id}.1.0`;
    const late = advance(
      c.state,
      {
        type: "late_tool_result",
        tool_call_id: "c1",
        request_id: requestId,
        outcome: ok("bash", "[main 1a2b3c] done"),
      },
      NOW,
    );
    expect(only(late.effects, "emit_event").map((e) => e.event)).toEqual([
      {
        type: "tool_late_result",
        toolCallId: "c1",
        toolName: "bash",
        result: ok("bash", "[main 1a2b3c] done"),
        isError: false,
      },
    ]);
    // Not yet in the history: the model is waited on; the note comes with its next call.
    expect(late.state.messages).toEqual(c.state.messages);
    const next = answer(late.state, calls(["read", { path: "README" }, "c2"]));
    const done = advance(
      next.state,
      {
        type: "tool_result",
        tool_call_id: "c2",
        request_id: next.state.run!.round![0]!.request_id,
        outcome: ok("read", "x"),
      },
      NOW,
    );
    expect(only(done.effects, "call_llm")).toHaveLength(1);
    expect(done.state.messages.at(-2)).toEqual({ role: "tool", tool_call_id: "c2", content: "x" });
    expect(lastMessage(done.state)).toBe(
      "[edgeloop] A late result: the earlier `bash` call (c1) did finish after its outcome was reported to you:\n[main 1a2b3c] done",
    );
    // Given once.
    expect(done.state.late_results).toEqual([]);
  });

  it("a late result after the run ended is given at the start of the next turn", () => {
    const c = ended(notSent);
    const idle = answer(c.state, text("sorry"));
    expect(idle.state.run).toBeNull();
    const late = advance(
      idle.state,
      { type: "late_tool_result", tool_call_id: "c1", request_id: "msg-1.1.0", outcome: ok("bash", "ok") },
      NOW,
    );
    expect(only(late.effects, "call_llm")).toEqual([]);
    const next = advance(
      late.state,
      { type: "user_message", message_id: "msg-2", text: "and now?", tools: late.state.tools },
      NOW,
    );
    expect(only(next.effects, "call_llm")).toHaveLength(1);
    expect(next.state.messages.at(-2)).toEqual({ role: "user", content: "and now?" });
    expect(lastMessage(next.state)).toMatch(/^\[edgeloop\] A late result: the earlier `bash` call \(c1\) did finish/);
  });

  it("a late result for a call this conversation never made, or one already kept, changes nothing", () => {
    const c = ended(unknown);
    const stranger = advance(
      c.state,
      { type: "late_tool_result", tool_call_id: "nope", request_id: "x.1.0", outcome: ok("bash", "?") },
      NOW,
    );
    expect(stranger.effects).toEqual([]);
    expect(stranger.state.late_results ?? []).toEqual([]);
    const once = advance(
      c.state,
      { type: "late_tool_result", tool_call_id: "c1", request_id: "msg-1.1.0", outcome: ok("bash", "ok") },
      NOW,
    );
    const twice = advance(
      once.state,
      { type: "late_tool_result", tool_call_id: "c1", request_id: "msg-1.1.0", outcome: ok("bash", "ok") },
      NOW,
    );
    expect(twice.effects).toEqual([]);
    expect(twice.state.late_results).toHaveLength(1);
  });

  it("a 'late' result for a call still open here is simply its result", () => {
    const b = dispatched();
    const requestId = b.run!.round![0]!.request_id;
    const c = advance(
      b,
      { type: "late_tool_result", tool_call_id: "c1", request_id: requestId, outcome: ok("bash", "fine") },
      NOW,
    );
    expect(c.state.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "c1", content: "fine" });
    expect(c.state.late_results ?? []).toEqual([]);
  });
});
