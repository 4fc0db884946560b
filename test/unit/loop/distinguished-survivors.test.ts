/**
 * Mutants docs/mutation.md once called equivalent, each with the input that tells it from the
 * code (issue 39's review). Each test fails with its mutant in place.
 */
import type { ToolSpec } from "@edgeloop/protocol";
import type { ApprovalRuleMatch } from "@edgeloop/protocol/approval-rules";
import type { ParametersSchema } from "@edgeloop/protocol/skill-manifest";
import { validateArguments } from "@edgeloop/protocol/validate-arguments";
import { describe, expect, it } from "vitest";
import { advance, initialState, type LoopState } from "../../../durable-objects/conversation/core/index.js";
import { parseIpv4 } from "../../../runtime/ip-address.js";
import { blockedHost } from "../../../runtime/outbound-url.js";
import { answer, NOW, start } from "./advance-helpers.js";
import { calls, only, spec, TOOLS } from "./fixtures.js";

function respond(state: LoopState, ...list: [string, unknown, string][]) {
  return answer(state, calls(...list));
}

describe("approval-rules.ts: a rule's pattern reads the call's own arguments", () => {
  // Mutant: `call.args ?? {}` → `call.args && {}` matched the pattern against `{}`.
  it("a deny rule for `rm -rf` refuses the call at once instead of waiting for a person", () => {
    const deny: ApprovalRuleMatch = {
      rule_id: "no-rm",
      effect: "deny",
      agent_id: "pi-1",
      tool: "bash",
      pattern: "rm -rf",
      expires_at: null,
    };
    const s0 = initialState("conv-1", "pi-1", { policies: { bash: "requires_approval" } });
    const a = advance(
      s0,
      { type: "user_message", message_id: "m1", text: "go", tools: TOOLS, approval_rules: [deny] },
      NOW,
    );
    const out = respond(a.state, ["bash", { command: "rm -rf /tmp/x" }, "c1"]);
    expect(only(out.effects, "emit_event").map((e) => e.event.type)).not.toContain("approval_required");
    expect(only(out.effects, "record_denial")).toMatchObject([{ decided_by: "rule:no-rm" }]);
    expect(only(out.effects, "call_llm")).toHaveLength(1);
  });
});

describe("round.ts", () => {
  // Mutant: `typeof asked === "number" &&` → `true` took a string `timeout_ms` as the call's timeout.
  it("a timeout_ms that is not a number leaves the tool's own timeout", () => {
    const stringly: ToolSpec = {
      ...spec("fetch", { url: { type: "string" }, timeout_ms: { type: "string" } }),
      timeout_ms: 7000,
    };
    const a = advance(
      initialState("conv-1", "pi-1"),
      { type: "user_message", message_id: "m1", text: "go", tools: [stringly] },
      NOW,
    );
    const out = respond(a.state, ["fetch", { url: "x", timeout_ms: "2000" }, "c1"]);
    expect(only(out.effects, "dispatch_tool").map((d) => d.timeout_ms)).toEqual([7000]);
  });

  // Mutant: `run.stopping = "budget"` → `""` let the error-limit check name the stop instead.
  it("the budget deadline during a round stops for the budget, even when the round's errors reach the limit", () => {
    const a = start({ max_wall_ms: 60_000, tool_error_limit: 1 });
    const b = respond(a.state, ["bash", { command: "sleep 99" }, "c1"]);
    const out = advance(b.state, { type: "deadline", key: "budget:msg-1" }, NOW + 60_000);
    expect(out.state.run!.stopping).toBe("budget");
    expect(out.state.messages.at(-1)!.content).toContain("the conversation's budget (60000 ms) ran out");
  });
});

describe("round.ts: a question's options (no test reached them before the issue 39 re-run)", () => {
  const question: ToolSpec = {
    ...spec("question", { question: { type: "string" } }, ["question"]),
    kind: "builtin",
    parameters: {
      type: "object",
      properties: { question: { type: "string" }, options: { type: "array" } },
      required: ["question"],
    },
  };
  const ask = (args: Record<string, unknown>) => {
    const a = advance(
      initialState("conv-1", "pi-1"),
      { type: "user_message", message_id: "m1", text: "go", tools: [question] },
      NOW,
    );
    const out = respond(a.state, ["question", args, "q1"]);
    return only(out.effects, "emit_event").find((e) => e.event.type === "question")!.event;
  };

  it("the question event carries the options that are text, and no options key when there are none", () => {
    expect(ask({ question: "Which?", options: ["red", 2, "blue", null] })).toEqual({
      type: "question",
      toolCallId: "q1",
      question: "Which?",
      options: ["red", "blue"],
    });
    expect(ask({ question: "Why?", options: [3] })).toEqual({ type: "question", toolCallId: "q1", question: "Why?" });
    expect(ask({ question: "Why?" })).toEqual({ type: "question", toolCallId: "q1", question: "Why?" });
  });
});

describe("late-results.ts", () => {
  // Mutant: `i >= 0` → `i > 0` never looked at the first message memory holds.
  it("finds a late result's call in the first message memory holds, an assistant's after a compaction", () => {
    const state: LoopState = {
      ...initialState("conv-1", "pi-1"),
      status: "completed",
      history: { from: 40, system: null },
      messages: [
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c9", type: "function", function: { name: "read", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c9", content: "Error: the device went away" },
      ],
    };
    const outcome = { status: "success" as const, tool: "read", result: "ok", stderr: "", exit_code: 0, elapsed_ms: 1 };
    const out = advance(state, { type: "late_tool_result", tool_call_id: "c9", request_id: "m.1.0", outcome }, NOW);
    expect(only(out.effects, "emit_event").map((e) => e.event)).toMatchObject([
      { type: "tool_late_result", toolCallId: "c9", toolName: "read" },
    ]);
  });
});

describe("ip-address.ts: an octal part is all octal digits", () => {
  // Mutant: `/^[0-7]+$/` → `/[0-7]+$/` read `0187` as octal `1` (parseInt stops at the 8).
  it("refuses 0187, which a raw Host header can carry, rather than reading it as 0.0.0.1", () => {
    expect(parseIpv4("0187")).toBeNull();
    expect(parseIpv4("10.0.0.0189")).toBeNull();
    expect(blockedHost("0187")).toBe("a numeric host that is not a valid IPv4 address");
  });
});

describe("validate-arguments.ts: bounds are for numbers", () => {
  // Mutant: `typeof value === "number"` → `true` compared a string with `minimum` and refused "3".
  it("a string under a schema that puts minimum and maximum on it is not held to them", () => {
    const schema: ParametersSchema = {
      type: "object",
      properties: { code: { type: "string", minimum: 5, maximum: 8 } as ParametersSchema["properties"][string] },
      required: ["code"],
    };
    expect(validateArguments("t", schema, { code: "3" })).toEqual({ ok: true, value: { code: "3" } });
    expect(validateArguments("t", schema, { code: "9" })).toEqual({ ok: true, value: { code: "9" } });
  });
});
