/** docs/architecture.md#late-results: what is kept of a late result, and what the model reads of it. */
import type { ToolOutcome } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { advance, type LoopState } from "../../../durable-objects/conversation/core/index.js";
import { answer, llmCallId, NOW, start } from "./advance-helpers.js";
import { calls, ok, only, text } from "./fixtures.js";

const notSent: ToolOutcome = { status: "error", tool: "bash", error: "device offline", error_type: "not_sent" };

/** A run whose model asked for `ids` bash calls in one round; all dispatched. */
function round(ids: string[], config = {}): LoopState {
  const a = start(config);
  const turn = calls(...ids.map((id): [string, unknown, string] => ["bash", { command: `echo ${id}` }, id]));
  return advance(a.state, { type: "llm_response", call_id: llmCallId(a.state), turn }, NOW).state;
}

function settle(state: LoopState, id: string, outcome: ToolOutcome) {
  const call = state.run!.round!.find((c) => c.id === id)!;
  return advance(state, { type: "tool_result", tool_call_id: id, request_id: call.request_id, outcome }, NOW);
}

function late(state: LoopState, id: string, outcome: ToolOutcome, requestId = `msg-1.1.${id}`) {
  return advance(state, { type: "late_tool_result", tool_call_id: id, request_id: requestId, outcome }, NOW);
}

/** The one call ended not_sent, the run over: a conversation waiting for its next message. */
function idleAfterNotSent(config = {}): LoopState {
  const ended = settle(round(["c1"], config), "c1", notSent).state;
  const done = answer(ended, text("sorry")).state;
  expect(done.run).toBeNull();
  return done;
}

function nextNote(state: LoopState): string {
  const next = advance(state, { type: "user_message", message_id: "msg-2", text: "again?", tools: state.tools }, NOW);
  expect(only(next.effects, "call_llm")).toHaveLength(1);
  return (next.state.messages.at(-1) as { content: string }).content;
}

describe("late results: an error", () => {
  it("is shown as an error and told to the model as an ending with an error, with what went wrong", () => {
    const failed: ToolOutcome = { status: "error", tool: "bash", error: "disk full", error_type: "execution_failed" };
    const out = late(idleAfterNotSent(), "c1", failed);
    expect(only(out.effects, "emit_event").map((e) => e.event)).toEqual([
      { type: "tool_late_result", toolCallId: "c1", toolName: "bash", result: failed, isError: true },
    ]);
    expect(nextNote(out.state)).toBe(
      "[edgeloop] A late result: the earlier `bash` call (c1) did end, with an error after its outcome was reported to you:\nError: Tool 'bash' failed: disk full",
    );
  });
});

describe("late results: what is kept of the text", () => {
  it("is redacted in the event and in the note, and cut to max_result_chars for the model", () => {
    const config = { redact_patterns: ["sk-[a-z0-9]+"], max_result_chars: 40 };
    const secret = `token sk-abc123 ${"x".repeat(60)}`;
    const out = late(idleAfterNotSent(config), "c1", ok("bash", secret));
    const event = only(out.effects, "emit_event")[0]!.event as { result: { result: string } };
    expect(event.result.result).toBe(`token [REDACTED] ${"x".repeat(60)}`);
    const note = nextNote(out.state);
    expect(note).not.toContain("sk-abc123");
    const body = note.split("\n").slice(1).join("\n");
    expect(
      body.startsWith(`token [REDACTED] ${"x".repeat(40 - "token sk-abc123 ".length)}\n[truncated: 36 of 76`),
    ).toBe(true);
  });
});

describe("late results: calls of the round under way", () => {
  it("a call that ended while the others still run is known by its name, and its late result comes before the next model call", () => {
    const a = start();
    const turn = calls(["read", { path: "/etc/hostname" }, "c1"], ["bash", { command: "git commit" }, "c2"]);
    const b = advance(a.state, { type: "llm_response", call_id: llmCallId(a.state), turn }, NOW).state;
    const c = settle(b, "c2", { ...notSent }).state;
    const requestId = c.run!.round!.find((x) => x.id === "c2")!.request_id;
    const d = late(c, "c2", ok("bash", "it ran after all"), requestId);
    expect(only(d.effects, "emit_event").map((e) => e.event)).toEqual([
      {
        type: "tool_late_result",
        toolCallId: "c2",
        toolName: "bash",
        result: ok("bash", "it ran after all"),
        isError: false,
      },
    ]);
    expect(d.state.late_results).toHaveLength(1);
    expect(d.state.late_seen).toEqual([requestId]);
    const e = settle(d.state, "c1", ok("read", "pi-1"));
    expect(only(e.effects, "call_llm")).toHaveLength(1);
    expect(e.state.messages.slice(-3)).toEqual([
      { role: "tool", tool_call_id: "c1", content: "pi-1" },
      { role: "tool", tool_call_id: "c2", content: expect.stringContaining("did not run") },
      {
        role: "user",
        content:
          "[edgeloop] A late result: the earlier `bash` call (c2) did finish after its outcome was reported to you:\nit ran after all",
      },
    ]);
  });

  it("several late results reach the model as one note, each in turn, then none again", () => {
    const b = round(["c1", "c2", "c3"]);
    let s = settle(b, "c1", notSent).state;
    s = settle(s, "c2", notSent).state;
    s = late(s, "c2", ok("bash", "two ran")).state;
    s = late(s, "c1", ok("bash", "one ran")).state;
    const e = settle(s, "c3", ok("bash", "three"));
    const note = (e.state.messages.at(-1) as { content: string }).content;
    expect(note.split("\n\n")).toEqual([
      "[edgeloop] A late result: the earlier `bash` call (c2) did finish after its outcome was reported to you:\ntwo ran",
      "[edgeloop] A late result: the earlier `bash` call (c1) did finish after its outcome was reported to you:\none ran",
    ]);
    expect(e.state.late_results).toEqual([]);
    const f = answer(e.state, text("ok"));
    expect(f.state.messages.filter((m) => m.role === "user" && m.content.includes("late result"))).toHaveLength(1);
  });

  it("waits while no model call is made in the step it arrives in", () => {
    const c = settle(round(["c1", "c2"]), "c1", notSent).state;
    const d = late(c, "c1", ok("bash", "ran"));
    expect(d.state.messages).toEqual(c.messages);
    expect(d.state.late_results).toHaveLength(1);
  });
});

describe("late results: redeliveries", () => {
  it("remembers the last 200 late request ids, enough to recognise the hub's redeliveries", () => {
    let s = idleAfterNotSent();
    for (let i = 0; i < 201; i++) s = late(s, "c1", ok("bash", `run ${i}`), `msg-1.1.0.r${i}`).state;
    expect(s.late_seen).toHaveLength(200);
    expect(s.late_seen![0]).toBe("msg-1.1.0.r1");
    expect(s.late_seen!.at(-1)).toBe("msg-1.1.0.r200");
    expect(late(s, "c1", ok("bash", "again"), "msg-1.1.0.r200").effects).toEqual([]);
  });
});
