/**
 * What the loop property suite (loop-properties.test.ts) is made of: random settings, tools,
 * model answers, outcomes and the events a conversation can meet, as fast-check arbitraries.
 * shell.ts plays them.
 */
import { ErrorType, type ToolOutcome, type ToolSpec } from "@edgeloop/protocol";
import type { ApprovalRuleMatch } from "@edgeloop/protocol/approval-rules";
import fc from "fast-check";
import type { LlmTurn, LoopConfig } from "../../../../durable-objects/conversation/core/index.js";

export const START = 1_700_000_000_000;

const str = (props: Record<string, "string" | "integer">, required: string[]) => ({
  type: "object" as const,
  properties: Object.fromEntries(Object.entries(props).map(([k, type]) => [k, { type }])),
  required,
});

function tool(name: string, kind: ToolSpec["kind"], parameters: ToolSpec["parameters"], extra = {}): ToolSpec {
  return { name, description: `${name} tool`, parameters, timeout_ms: 1000, max_timeout_ms: 5000, kind, ...extra };
}

/** Every kind of tool the loop treats apart: device, built-in, webhook, the question, fleet routes. */
const BASE_TOOLS: ToolSpec[] = [
  tool("bash", "device", str({ command: "string", timeout_ms: "integer" }, ["command"])),
  tool("read", "device", str({ path: "string", offset: "integer" }, ["path"])),
  tool("question", "builtin", str({ question: "string" }, ["question"])),
  tool("clock", "builtin", str({}, [])),
  tool("notify", "webhook", str({ text: "string" }, ["text"])),
  tool("pi-2__bash", "device", str({ command: "string" }, ["command"]), { fleet: { tool: "bash", agents: ["pi-2"] } }),
  tool("lab__bash", "device", str({ command: "string" }, ["command"]), {
    fleet: { tool: "bash", agents: ["pi-1", "pi-2"] },
  }),
];
const TOOL_NAMES = BASE_TOOLS.map((t) => t.name);
const POLICY_NAMES = ["bash", "read", "question", "clock", "notify", "*"];

// ---- what the arbitraries make ------------------------------------------------------------

/** Texts that have broken things before: JSON's own characters, secrets, the loop's own prefix. */
const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 24 }) },
  fc.constantFrom(
    "Bearer abc123",
    'say "hi" \\ there',
    "sk-abcdefghijklmnopqrstuvwxyz",
    "rm -rf /",
    "[edgeloop] a note",
    "",
    "x".repeat(300),
  ),
);

const pattern = fc.oneof(
  fc.constantFrom("Bearer \\S+", '"', "\\\\", "[{}\\[\\]:,]", ".", "\\S+", "rm -rf", "(unclosed", "a*", ""),
  fc.string({ maxLength: 6, unit: fc.constantFrom("a", "b", ".", "*", "+", "?", "(", ")", "[", "]", "\\", '"', " ") }),
);

const policy = fc.constantFrom("auto" as const, "requires_approval" as const);

/** Settings as the deployment's vars and a message's options can lay them over the defaults. */
export const settings: fc.Arbitrary<Partial<LoopConfig>> = fc.record(
  {
    max_iterations: fc.integer({ min: 1, max: 5 }),
    tool_error_limit: fc.integer({ min: 1, max: 3 }),
    max_parallel: fc.integer({ min: 1, max: 3 }),
    max_result_chars: fc.integer({ min: 1, max: 400 }),
    system_prompt: fc.option(text),
    tool_deadline_grace_ms: fc.nat(2000),
    approval_timeout_ms: fc.integer({ min: 1, max: 100_000 }),
    question_timeout_ms: fc.integer({ min: 1, max: 100_000 }),
    policies: fc.dictionary(fc.constantFrom(...POLICY_NAMES), policy, { maxKeys: 3 }),
    deny_patterns: fc.dictionary(fc.constantFrom(...POLICY_NAMES), fc.array(pattern, { maxLength: 1 }), { maxKeys: 1 }),
    param_overrides: fc.dictionary(
      fc.constantFrom("bash", "read"),
      fc.dictionary(fc.constantFrom("command", "path"), text, { maxKeys: 1 }),
      { maxKeys: 1 },
    ),
    redact_patterns: fc.array(pattern, { maxLength: 3 }),
    max_tokens: fc.option(fc.integer({ min: 1, max: 20_000 }), { freq: 3 }),
    max_wall_ms: fc.option(fc.integer({ min: 1, max: 500_000 }), { freq: 3 }),
    citations: fc.boolean(),
    context_tokens: fc.option(fc.integer({ min: 100, max: 20_000 }), { freq: 3 }),
    compact_at: fc.double({ min: 0.1, max: 0.95, noNaN: true }),
    keep_recent_turns: fc.integer({ min: 1, max: 4 }),
  },
  { requiredKeys: [] },
);

/** Most of the tools, each with its own approval policy or none. */
const tools: fc.Arbitrary<ToolSpec[]> = fc
  .tuple(
    fc.subarray(BASE_TOOLS, { minLength: BASE_TOOLS.length - 1 }),
    fc.array(fc.option(policy), { minLength: BASE_TOOLS.length, maxLength: BASE_TOOLS.length }),
  )
  .map(([list, policies]) => list.map((t, i) => (policies[i] ? { ...t, policy: policies[i] } : t)));

/** A rule's id says its effect (`allow-1`, `deny-2`), so a decision names what it allowed. */
const rule: fc.Arbitrary<ApprovalRuleMatch> = fc
  .record({
    n: fc.constantFrom(1, 2, 3),
    effect: fc.constantFrom("allow" as const, "deny" as const),
    agent_id: fc.constantFrom(null, "pi-1", "pi-2"),
    tool: fc.constantFrom("bash", "read", "question", "clock", "notify"),
    pattern: fc.option(pattern),
    expires_at: fc.option(fc.integer({ min: START - 1000, max: START + 500_000 })),
  })
  .map(({ n, ...r }) => ({ ...r, rule_id: `${r.effect}-${n}` }));

/** Arguments that fit one of the tools' schemas, with the names that take them. */
const fitting = fc.oneof(
  fc.record({
    name: fc.constantFrom("bash", "pi-2__bash", "lab__bash"),
    args: fc.record({ command: text, timeout_ms: fc.integer({ min: -5, max: 10_000 }) }, { requiredKeys: ["command"] }),
  }),
  fc.record({
    name: fc.constant("read"),
    args: fc.record({ path: text, offset: fc.integer() }, { requiredKeys: ["path"] }),
  }),
  fc.record({ name: fc.constant("question"), args: fc.record({ question: text }) }),
  fc.record({ name: fc.constant("clock"), args: fc.constant({}) }),
  fc.record({ name: fc.constant("notify"), args: fc.record({ text }) }),
);

/** Arguments that are not JSON, or not an object, or fit no schema. */
const ill = fc.oneof(fc.constantFrom("{}", "{", "null", "[]", '"x"', '{"command":5}', ""), fc.json({ maxDepth: 2 }));
const args = fc.oneof(
  { weight: 3, arbitrary: fitting.map((f) => JSON.stringify(f.args)) },
  { weight: 1, arbitrary: ill },
);

/** A call of a model's answer; `id: null` is a fresh id, the others repeat on purpose. */
const modelCall = fc
  .record({
    id: fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, fc.constantFrom("dup", "c0", "")),
    call: fc.oneof(
      { weight: 12, arbitrary: fitting.map((f) => ({ name: f.name, arguments: JSON.stringify(f.args) })) },
      { weight: 1, arbitrary: fc.record({ name: fc.constantFrom(...TOOL_NAMES), arguments: ill }) },
      { weight: 1, arbitrary: fc.record({ name: fc.constantFrom("nope", "", "Bash"), arguments: args }) },
    ),
  })
  .map(({ id, call }) => ({ id, ...call }));

export type TurnShape = Omit<LlmTurn, "toolCalls"> & {
  toolCalls: { id: string | null; name: string; arguments: string }[];
};

/** A model's answer: text, tool calls (well- or ill-formed), a text tool call that did not parse. */
const turn: fc.Arbitrary<TurnShape> = fc
  .record(
    {
      content: fc.option(text),
      toolCalls: fc.oneof(
        { weight: 1, arbitrary: fc.constant<TurnShape["toolCalls"]>([]) },
        { weight: 3, arbitrary: fc.array(modelCall, { minLength: 1, maxLength: 4 }) },
      ),
      malformedToolCall: fc.option(text, { freq: 6 }),
      usage: fc.record({ prompt_tokens: fc.integer({ min: -1, max: 3000 }), completion_tokens: fc.nat(3000) }),
      finishReason: fc.constantFrom("stop", "tool_calls", "length", null),
    },
    { requiredKeys: ["content", "toolCalls"] },
  )
  .map(({ malformedToolCall, ...t }) => (malformedToolCall ? { ...t, malformedToolCall } : t));

const IMAGE = {
  type: "image" as const,
  media_type: "image/png",
  sha256: "a".repeat(64),
  bytes: 10,
  url: "/v1/conversations/c/images/x",
};
/** A tool's outcome, its `tool` filled in by the shell from the call it answers. */
const outcome: fc.Arbitrary<Omit<ToolOutcome, "tool">> = fc.oneof(
  fc.record(
    {
      status: fc.constant("success" as const),
      result: text,
      stderr: text,
      exit_code: fc.integer({ min: -1, max: 2 }),
      elapsed_ms: fc.nat(10_000),
      content: fc.array(
        fc.oneof(
          text.map((t) => ({ type: "text" as const, text: t })),
          fc.constant(IMAGE),
        ),
        {
          maxLength: 2,
        },
      ),
      truncated: fc.boolean(),
    },
    { requiredKeys: ["status", "result", "stderr", "exit_code", "elapsed_ms"] },
  ),
  fc.record(
    {
      status: fc.constant("error" as const),
      error: text,
      error_type: fc.constantFrom(...ErrorType.options),
      stderr: text,
      exit_code: fc.integer({ min: -1, max: 2 }),
      elapsed_ms: fc.nat(10_000),
    },
    { requiredKeys: ["status", "error", "error_type"] },
  ),
);

/** One thing that happens to a conversation; `pick` chooses among what is there to act on. */
export type Op =
  | { k: "message"; text: string; config: Partial<LoopConfig> | null; rules: ApprovalRuleMatch[] | null }
  | { k: "direct"; name: string; arguments: string; repeat: boolean; rules: ApprovalRuleMatch[] | null }
  | { k: "llm"; turn: TurnShape; stale: boolean }
  | { k: "llm_failed"; stale: boolean }
  | { k: "result"; pick: number; outcome: Omit<ToolOutcome, "tool">; stale: boolean }
  | { k: "late"; pick: number; outcome: Omit<ToolOutcome, "tool">; stored: boolean; again: boolean }
  | { k: "approve"; pick: number; approve: boolean; rule: ApprovalRuleMatch | null; reason: string | null }
  | { k: "answer"; pick: number; text: string }
  | { k: "progress"; pick: number }
  | { k: "cancel"; reason: string | null }
  | { k: "timer"; pick: number; stale: boolean }
  | { k: "compaction"; ok: boolean; stale: boolean; summary: string; todos: string[] }
  | { k: "restart" }
  /** many short turns, or many late results, to reach the counts the state is bounded by */
  | { k: "burst"; n: number }
  | { k: "late_burst"; n: number }
  | { k: "wait"; ms: number };

const pick = fc.nat(50);
/** True about once in `n`. */
const rarely = (n: number) => fc.nat(n - 1).map((x) => x === 0);
export const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      k: fc.constant("message" as const),
      text,
      config: fc.option(settings, { freq: 4 }),
      rules: fc.option(fc.array(rule, { maxLength: 2 })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        k: fc.constant("direct" as const),
        call: modelCall,
        repeat: fc.boolean(),
        rules: fc.option(fc.array(rule, { maxLength: 2 })),
      })
      .map(({ call, ...o }) => ({ ...o, name: call.name, arguments: call.arguments })),
  },
  { weight: 8, arbitrary: fc.record({ k: fc.constant("llm" as const), turn, stale: rarely(8) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("llm_failed" as const), stale: fc.boolean() }) },
  {
    weight: 6,
    arbitrary: fc.record({ k: fc.constant("result" as const), pick, outcome, stale: rarely(6) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant("late" as const),
      pick,
      outcome,
      stored: fc.boolean(),
      again: rarely(4),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      k: fc.constant("approve" as const),
      pick,
      approve: fc.boolean(),
      rule: fc.option(rule),
      reason: fc.option(text),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("answer" as const), pick, text }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("progress" as const), pick }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("cancel" as const), reason: fc.option(text) }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant("timer" as const), pick, stale: rarely(6) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant("compaction" as const),
      ok: fc.boolean(),
      stale: rarely(6),
      summary: text,
      todos: fc.array(text, { maxLength: 2 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("restart" as const) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("burst" as const), n: fc.integer({ min: 1, max: 22 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("late_burst" as const), n: fc.integer({ min: 1, max: 210 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("wait" as const), ms: fc.nat(120_000) }) },
);

export type Scenario = { config: Partial<LoopConfig>; tools: ToolSpec[]; ops: Op[] };
export const scenario: fc.Arbitrary<Scenario> = fc.record({
  config: settings,
  tools,
  ops: fc.array(op, { minLength: 1, maxLength: 60, size: "max" }),
});
