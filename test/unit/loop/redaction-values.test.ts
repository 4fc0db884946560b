/**
 * docs/architecture.md#the-loops-rules-beyond-the-basics: an outcome is redacted as values, never
 * as its JSON text, so no pattern can break a result or stop the loop. `Bearer \S+` over the JSON
 * `{"result":"Bearer abc123"}` ate the closing quote, and parsing it back threw out of advance().
 */
import type { ToolOutcome } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import {
  advance,
  type CallOutcome,
  DEFAULT_LOOP_CONFIG,
  initialState,
  type LoopState,
} from "../../../durable-objects/conversation/core/index.js";
import { redactForPersist, redactOutcome } from "../../../durable-objects/conversation/core/tool-policy.js";
import { answer, llmCallId, NOW, start } from "./advance-helpers.js";
import { calls, ok, only, TOOLS, text } from "./fixtures.js";

const BEARER = { redact_patterns: ["Bearer \\S+"] };
const config = (patterns: string[]) => ({ ...DEFAULT_LOOP_CONFIG, redact_patterns: patterns });

/** Patterns that match JSON's own characters: each broke the text the old redaction parsed back. */
const JSON_BREAKERS = [
  '"',
  "\\\\",
  "[{}\\[\\]:,]",
  "Bearer \\S+",
  ".",
  "\\S+",
  "[a-z0-9]+",
  "success",
  "status",
  "tool",
];

describe("redactOutcome", () => {
  it("redacts each text of an outcome as a value, whatever the text around it", () => {
    const outcome: ToolOutcome = {
      status: "success",
      tool: "bash",
      result: 'curl -H "Authorization: Bearer abc123" x',
      stderr: "Bearer zzz",
      exit_code: 0,
      elapsed_ms: 5,
      content: [
        { type: "text", text: "token Bearer abc123, end" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      ],
    };
    expect(redactOutcome(config(BEARER.redact_patterns), outcome)).toEqual({
      ...outcome,
      result: 'curl -H "Authorization: [REDACTED] x',
      stderr: "[REDACTED]",
      content: [
        { type: "text", text: "token [REDACTED] end" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      ],
    });
    const failed: ToolOutcome = { status: "error", tool: "bash", error: "Bearer abc", error_type: "timeout" };
    expect(redactOutcome(config(BEARER.redact_patterns), failed)).toEqual({ ...failed, error: "[REDACTED]" });
    const blocked: CallOutcome = { status: "blocked", tool: "bash", reason: "Denied: Bearer abc" };
    expect(redactOutcome(config(BEARER.redact_patterns), blocked)).toEqual({
      ...blocked,
      reason: "Denied: [REDACTED]",
    });
  });

  it("keeps what says what the outcome is, for any pattern, and leaves the input as it was", () => {
    const outcome: ToolOutcome = { status: "error", tool: "bash", error: "Bearer x", error_type: "execution_failed" };
    const before = structuredClone(outcome);
    for (const pattern of JSON_BREAKERS) {
      const out = redactOutcome(config([pattern]), outcome);
      expect(out).toMatchObject({ status: "error", tool: "bash", error_type: "execution_failed" });
      expect(JSON.parse(JSON.stringify(out))).toEqual(out);
    }
    expect(outcome).toEqual(before);
  });

  it("returns the outcome unchanged when nothing matches, and skips a pattern that does not compile", () => {
    const outcome = ok("bash", "nothing secret");
    expect(redactOutcome(config(["sk-[a-z]+", "(unclosed"]), outcome)).toEqual(outcome);
  });

  it("takes a content key without blocks as no content, and redacts content on any outcome that has some", () => {
    // Mutant: `"content" in outcome && outcome.content` → `||` mapped over an undefined content.
    const bare: ToolOutcome = { ...ok("bash", "Bearer abc"), content: undefined } as ToolOutcome;
    expect(redactOutcome(config(["Bearer \\S+"]), bare)).toEqual({ ...bare, result: "[REDACTED]" });
    // Only a success should carry blocks; an error that came with some still has them redacted.
    const failed = { status: "error", tool: "bash", error: "x", error_type: "execution_failed" };
    const stray = { ...failed, content: [{ type: "text", text: "Bearer abc" }] } as unknown as ToolOutcome;
    expect(redactOutcome(config(["Bearer \\S+"]), stray)).toEqual({
      ...failed,
      content: [{ type: "text", text: "[REDACTED]" }],
    });
  });
});

function dispatched(cfg: object): LoopState {
  const a = start(cfg);
  const turn = calls(["bash", { command: "env" }, "c1"]);
  return advance(a.state, { type: "llm_response", call_id: llmCallId(a.state), turn }, NOW).state;
}

function result(state: LoopState, id: string, outcome: ToolOutcome) {
  const call = state.run!.round!.find((c) => c.id === id)!;
  return advance(state, { type: "tool_result", tool_call_id: id, request_id: call.request_id, outcome }, NOW);
}

describe("redactForPersist", () => {
  it("replaces what a pattern matches, and leaves a match of no characters alone", () => {
    expect(redactForPersist(config(["a*"]), "banana")).toBe("b[REDACTED]n[REDACTED]n[REDACTED]");
    // Each of these matches nothing but places: no marker between every two characters.
    for (const empty of ["", "x?", "\\b", "(?=n)", "^"])
      expect(redactForPersist(config([empty, empty]), "ba na"), empty).toBe("ba na");
  });
});

describe("advance() with a pattern that matches JSON's own characters", () => {
  it("a model's call: the event and the model's text are redacted, and the run goes on", () => {
    for (const pattern of JSON_BREAKERS) {
      const out = result(dispatched({ redact_patterns: [pattern] }), "c1", ok("bash", "Bearer abc123"));
      const end = only(out.effects, "emit_event").find((e) => e.event.type === "tool_execution_end")!.event;
      expect(end).toMatchObject({ result: { status: "success", tool: "bash" } });
      expect(only(out.effects, "call_llm")).toHaveLength(1);
      expect(out.state.messages.at(-1)).toMatchObject({ role: "tool" });
      if (new RegExp(pattern).test("abc123")) {
        expect(JSON.stringify(end)).not.toContain("abc123");
        expect(out.state.messages.at(-1)!.content).not.toContain("abc123");
      }
    }
  });

  it("a direct call: the reply's outcome is redacted and still an outcome", () => {
    const s0 = initialState("conv-d", "pi-1", BEARER);
    const call = { id: "mcp_call", name: "bash", arguments: JSON.stringify({ command: "env" }) };
    const started = advance(s0, { type: "tool_call", message_id: "msg-d", call, tools: TOOLS }, NOW).state;
    const done = result(started, "mcp_call", ok("bash", "Authorization: Bearer abc123"));
    const reply = only(done.effects, "reply")[0]!.reply;
    expect(reply).toMatchObject({ status: "completed", reply: "Authorization: [REDACTED]" });
    expect(reply.outcome).toEqual(ok("bash", "Authorization: [REDACTED]"));
    // The conversation goes on: the next message starts a run.
    const next = advance(done.state, { type: "user_message", message_id: "m2", text: "and?", tools: TOOLS }, NOW);
    expect(only(next.effects, "call_llm")).toHaveLength(1);
  });

  it("a late result: its event and its note are redacted, and the next message goes on", () => {
    const notSent: ToolOutcome = { status: "error", tool: "bash", error: "device offline", error_type: "not_sent" };
    const ended = result(dispatched(BEARER), "c1", notSent).state;
    const idle = answer(ended, text("sorry")).state;
    const late = advance(
      idle,
      { type: "late_tool_result", tool_call_id: "c1", request_id: "msg-1.1.0", outcome: ok("bash", "Bearer abc123") },
      NOW,
    );
    expect(only(late.effects, "emit_event").map((e) => e.event)).toEqual([
      {
        type: "tool_late_result",
        toolCallId: "c1",
        toolName: "bash",
        result: ok("bash", "[REDACTED]"),
        isError: false,
      },
    ]);
    const next = advance(late.state, { type: "user_message", message_id: "m2", text: "and?", tools: TOOLS }, NOW);
    expect(only(next.effects, "call_llm")).toHaveLength(1);
    const note = next.state.messages.at(-1)!.content!;
    expect(note).toContain("[REDACTED]");
    expect(note).not.toContain("abc123");
  });

  it("a refusal is shown to the model as JSON that still parses", () => {
    // The refusal's reason names the deny pattern, which the redaction pattern matches.
    const a = start({ redact_patterns: ["Bearer \\S+"], deny_patterns: { bash: ["Bearer \\S+"] } });
    const turn = calls(["bash", { command: "curl -H 'Authorization: Bearer abc123'" }, "c1"]);
    const out = advance(a.state, { type: "llm_response", call_id: llmCallId(a.state), turn }, NOW);
    expect(only(out.effects, "call_llm")).toHaveLength(1);
    const tool = out.state.messages.at(-1)!;
    expect(tool.role).toBe("tool");
    expect(JSON.parse(tool.content as string)).toEqual({
      status: "blocked",
      tool: "bash",
      reason: "Tool blocked by policy: arguments match /[REDACTED]",
    });
  });
});
