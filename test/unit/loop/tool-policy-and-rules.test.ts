/** The deployment's tool policy and approval rules as functions: deny-lists, overrides, redaction, policies, audit records. */
import type { ToolSpec } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { mayNeedApproval, ruleFor } from "../../../durable-objects/conversation/core/approval-rules.js";
import {
  advance,
  DEFAULT_LOOP_CONFIG,
  initialState,
  type LoopConfig,
} from "../../../durable-objects/conversation/core/index.js";
import {
  beforeToolCall,
  policyFor,
  redactForPersist,
  safeRegex,
} from "../../../durable-objects/conversation/core/tool-policy.js";
import { NOW } from "./advance-helpers.js";
import { calls, only, spec, TOOLS } from "./fixtures.js";

const config = (over: Partial<LoopConfig>): LoopConfig => ({ ...DEFAULT_LOOP_CONFIG, ...over });

describe("compiled patterns", () => {
  it("are compiled once per pattern and flags, and kept for at most 256 patterns", () => {
    // Mutants: the cache's `re === undefined` → `true`, and its bound (`compiled.size >= MAX_COMPILED` → `true`,
    // `false`, `>`, `<`). Other tests share the cache, so its size is first brought to a known point: the insert
    // that clears it, seen by a pattern compiled before it being compiled anew.
    // Names no earlier run can have compiled: a worker may run this test more than once (Stryker does).
    const id = crypto.randomUUID();
    const p = (n: number) => `${id}-${n}`;
    expect(safeRegex(p(0), "g")).toBe(safeRegex(p(0), "g"));
    expect(safeRegex(p(0), "g")).not.toBe(safeRegex(p(0)));
    const r0 = safeRegex(p(0));
    let i = 1;
    while (i < 600 && safeRegex(p(0)) === r0) safeRegex(p(i++));
    expect(i).toBeLessThan(600);
    // The cache now holds p(i - 1) and p(0): 254 more fill it, and the next pattern clears it.
    const kept = safeRegex(p(i - 1));
    for (let n = 0; n < 254; n++) safeRegex(`${id}-fill-${n}`);
    expect(safeRegex(p(i - 1))).toBe(kept);
    safeRegex(`${id}-fill-254`);
    expect(safeRegex(p(i - 1))).not.toBe(kept);
  });
});

describe("before_tool_call", () => {
  it("a '*' deny pattern applies to every tool, with the pattern in the reason", () => {
    expect(beforeToolCall(config({ deny_patterns: { "*": ["secret"] } }), "read", { path: "/secret" })).toEqual({
      action: "block",
      reason: "Tool blocked by policy: arguments match /secret/",
    });
  });

  it("a tool without deny patterns of its own, or none for '*', blocks nothing, whatever the arguments say", () => {
    // The mutants of each `?? []` put one made-up pattern, "Stryker was here", in place of the missing list.
    const args = { command: "echo Stryker was here" };
    const allowed = { action: "allow", args };
    expect(beforeToolCall(config({ deny_patterns: {} }), "bash", args)).toEqual(allowed);
    expect(beforeToolCall(config({ deny_patterns: { "*": ["rm"] } }), "bash", args)).toEqual(allowed);
    expect(beforeToolCall(config({ deny_patterns: { bash: ["rm"] } }), "bash", args)).toEqual(allowed);
  });

  it("a pattern that does not compile is skipped; overrides are laid over the arguments", () => {
    const c = config({ deny_patterns: { bash: ["(unclosed"] }, param_overrides: { bash: { cwd: "/srv" } } });
    expect(beforeToolCall(c, "bash", { command: "ls", cwd: "/" })).toEqual({
      action: "allow",
      args: { command: "ls", cwd: "/srv" },
    });
    const args = { command: "ls" };
    expect(beforeToolCall(config({}), "bash", args)).toEqual({ action: "allow", args });
  });
});

describe("tool_result_persist and policies", () => {
  it("redacts every match, and skips a pattern that does not compile", () => {
    const c = config({ redact_patterns: ["tok[0-9]+", "(bad"] });
    expect(redactForPersist(c, "tok1 and tok22")).toBe("[REDACTED] and [REDACTED]");
    expect(redactForPersist(config({ redact_patterns: ["(bad"] }), "a null value")).toBe("a null value");
    expect(safeRegex("(bad")).toBeNull();
    expect(safeRegex("a", "g")?.flags).toBe("g");
    expect(safeRegex("a")?.flags).toBe("");
  });

  it("a tool's policy: its own entry, then '*', then the tool's, then auto", () => {
    expect(policyFor(config({ policies: { bash: "auto", "*": "requires_approval" } }), "bash", undefined)).toBe("auto");
    expect(policyFor(config({ policies: { "*": "requires_approval" } }), "bash", "auto")).toBe("requires_approval");
    expect(policyFor(config({}), "bash", "requires_approval")).toBe("requires_approval");
    expect(policyFor(config({}), "bash", undefined)).toBe("auto");
  });

  it("the rules are needed only when some tool can ask for approval", () => {
    const tools: ToolSpec[] = [spec("a"), { ...spec("b"), policy: "requires_approval" }];
    expect(mayNeedApproval(config({}), tools)).toBe(true);
    expect(mayNeedApproval(config({}), [spec("a")])).toBe(false);
    expect(mayNeedApproval(config({ policies: { a: "requires_approval" } }), [spec("a")])).toBe(true);
  });
});

describe("approval rules: edges", () => {
  it("no rules, or a rule whose pattern does not compile, answer nothing", () => {
    expect(ruleFor(undefined, "pi-1", "bash", {}, NOW)).toBeNull();
    const bad = {
      rule_id: "r",
      effect: "allow" as const,
      agent_id: null,
      tool: "bash",
      pattern: "(x",
      expires_at: null,
    };
    expect(ruleFor([bad], "pi-1", "bash", { command: "(x" }, NOW)).toBeNull();
  });

  it("only a device call blocked by a decision goes to the device's audit log", () => {
    const TIME: ToolSpec = { ...spec("get_current_time", {}), kind: "builtin" };
    const a = advance(
      initialState("conv-1", "pi-1", {
        policies: { get_current_time: "requires_approval" },
        deny_patterns: { bash: ["rm"] },
      }),
      { type: "user_message", message_id: "m1", text: "go", tools: [...TOOLS, TIME] },
      NOW,
    );
    const b = advance(
      a.state,
      {
        type: "llm_response",
        call_id: a.state.run!.awaiting_llm!,
        turn: calls(["get_current_time", {}, "t1"], ["bash", { command: "rm x" }, "c2"]),
      },
      NOW,
    );
    expect(only(b.effects, "record_denial")).toEqual([]);
    const c = advance(b.state, { type: "approval", tool_call_id: "t1", approve: false }, NOW);
    expect(only(c.effects, "record_denial")).toEqual([]);
  });
});
