import type { ToolOutcome } from "@edgeloop/protocol";
import { parseTraceparent, spanIdFor } from "@edgeloop/protocol/trace-context";
import { describe, expect, it } from "vitest";
import {
  advance,
  initialState,
  type LoopEvent,
  type LoopState,
} from "../../../durable-objects/conversation/core/index.js";
import {
  type RunTrace,
  rootSpanId,
  type SpanRecord,
  type TraceOptions,
  toolTraceparent,
  traceStep,
} from "../../../durable-objects/conversation/tracing/run-spans.js";
import { calls, ok, only, TOOLS, text } from "../loop/fixtures.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const OPTS: TraceOptions = { provider: "openai", model: "gpt-x", content: false, newTraceId: () => TRACE_ID };

/** Drives the real loop core and the tracer together, as the conversation's commit does. */
class ScriptedRun {
  state: LoopState;
  trace: RunTrace | null = null;
  spans: SpanRecord[] = [];
  now = 1_000;
  constructor(
    config = {},
    private readonly opts = OPTS,
  ) {
    this.state = initialState("conv-1", "pi-1", config);
  }
  step(event: LoopEvent, after = 10) {
    this.now += after;
    const prev = this.state;
    const { state, effects } = advance(prev, event, this.now);
    const out = traceStep(this.trace, { prev, state, event, effects, now: this.now }, this.opts);
    this.state = state;
    this.trace = out.trace;
    this.spans.push(...out.spans);
    return effects;
  }
  llm() {
    const id = this.state.run?.awaiting_llm;
    if (!id) throw new Error("not waiting for the model");
    return id;
  }
  /** the call's result event, with the request id the loop gave it */
  result(id: string, outcome: ToolOutcome): LoopEvent {
    const call = this.state.run?.round?.find((c) => c.id === id);
    if (!call) throw new Error(`no call ${id}`);
    return { type: "tool_result", tool_call_id: id, request_id: call.request_id, outcome };
  }
  named(prefix: string) {
    return this.spans.filter((s) => s.name.startsWith(prefix));
  }
}

describe("a run's GenAI spans", () => {
  it("one invoke_agent root, a chat span per model call and an execute_tool span per call, all in one trace", () => {
    const run = new ScriptedRun();
    run.step({ type: "user_message", message_id: "m1", text: "hi", tools: TOOLS });
    expect(run.trace?.trace_id).toBe(TRACE_ID);
    const turn = { ...calls(["bash", { command: "ls" }, "c1"]), usage: { prompt_tokens: 12, completion_tokens: 3 } };
    run.step({ type: "llm_response", call_id: run.llm(), turn: { ...turn, finishReason: "tool_calls" } }, 100);
    const dispatch = only(run.step(run.result("c1", ok("bash", "a b")), 250), "call_llm");
    expect(dispatch).toHaveLength(1);
    run.step({ type: "llm_response", call_id: run.llm(), turn: { ...text("done"), finishReason: "stop" } }, 40);

    expect(run.spans.map((s) => s.name)).toEqual([
      "chat gpt-x",
      "execute_tool bash",
      "chat gpt-x",
      "invoke_agent pi-1",
    ]);
    const root = run.named("invoke_agent")[0]!;
    expect(root.parent_span_id).toBeNull();
    expect(root.span_id).toBe(rootSpanId({ trace_id: TRACE_ID }));
    for (const s of run.spans) expect(s.trace_id).toBe(TRACE_ID);
    for (const s of run.spans.filter((s) => s !== root)) expect(s.parent_span_id).toBe(root.span_id);
    expect(root.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.conversation.id": "conv-1",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-x",
      "edgeloop.stop_reason": "answer",
      "edgeloop.duration_ms": 390,
    });
    expect(root.attributes["error.type"]).toBeUndefined();

    const [chat] = run.named("chat");
    expect(chat!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.usage.input_tokens": 12,
      "gen_ai.usage.output_tokens": 3,
      "gen_ai.response.finish_reasons": '["tool_calls"]',
      "edgeloop.duration_ms": 100,
    });
    const tool = run.named("execute_tool")[0]!;
    expect(tool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "bash",
      "gen_ai.tool.call.id": "c1",
      "gen_ai.tool.type": "function",
      "edgeloop.device.id": "pi-1",
      "edgeloop.outcome": "success",
      "edgeloop.duration_ms": 250,
    });
    // Content stays out unless the deployment allows it.
    expect(tool.attributes["gen_ai.tool.call.arguments"]).toBeUndefined();
    expect(tool.attributes["gen_ai.tool.call.result"]).toBeUndefined();
    expect(run.trace).toBeNull();
  });

  it("the traceparent a call carries names its execute_tool span", () => {
    const run = new ScriptedRun();
    run.step({ type: "user_message", message_id: "m1", text: "hi", tools: TOOLS });
    run.step({ type: "llm_response", call_id: run.llm(), turn: calls(["bash", { command: "ls" }, "c1"]) });
    const parent = parseTraceparent(toolTraceparent(run.trace!, "c1"));
    run.step(run.result("c1", ok("bash", "")));
    expect(parent).toEqual({ trace_id: TRACE_ID, span_id: run.named("execute_tool")[0]!.span_id, sampled: true });
  });

  it("a failed call gets error.type from its error type; a failed model call gets a low-cardinality class", () => {
    const run = new ScriptedRun({ tool_error_limit: 1 });
    run.step({ type: "user_message", message_id: "m1", text: "hi", tools: TOOLS });
    run.step({ type: "llm_response", call_id: run.llm(), turn: calls(["bash", { command: "ls" }, "c1"]) });
    const outcome = { status: "error" as const, tool: "bash", error: "boom", error_type: "timeout" as const };
    run.step(run.result("c1", outcome));
    run.step({ type: "llm_failed", call_id: run.llm(), error: "HTTP 503 from the provider" });
    expect(run.named("execute_tool")[0]!.attributes).toMatchObject({
      "edgeloop.outcome": "error",
      "error.type": "timeout",
    });
    const chats = run.named("chat");
    expect(chats.at(-1)!.attributes["error.type"]).toBe("503");
  });

  it("an approval wait is its own span under the call's span, and content is kept when allowed", () => {
    const run = new ScriptedRun({ policies: { bash: "requires_approval" } }, { ...OPTS, content: true });
    run.step({ type: "user_message", message_id: "m1", text: "hi", tools: TOOLS });
    run.step({ type: "llm_response", call_id: run.llm(), turn: calls(["bash", { command: "ls" }, "c1"]) });
    expect(run.named("await_approval")).toHaveLength(0);
    run.step({ type: "approval", tool_call_id: "c1", approve: true }, 5_000);
    const [wait] = run.named("await_approval");
    expect(wait!.parent_span_id).toBe(spanIdFor(TRACE_ID, "tool:c1"));
    expect(wait!.attributes).toMatchObject({ "edgeloop.approval.approved": true, "edgeloop.duration_ms": 5_000 });
    run.step(run.result("c1", ok("bash", "file")), 20);
    const tool = run.named("execute_tool")[0]!;
    expect(tool.attributes).toMatchObject({
      "gen_ai.tool.call.arguments": '{"command":"ls"}',
      "gen_ai.tool.call.result": "file",
      "edgeloop.duration_ms": 5_020,
    });
  });

  it("a cancelled run closes its open calls as cancelled and marks the root with error.type", () => {
    const run = new ScriptedRun();
    run.step({ type: "user_message", message_id: "m1", text: "hi", tools: TOOLS });
    run.step({ type: "llm_response", call_id: run.llm(), turn: calls(["bash", { command: "ls" }, "c1"]) });
    run.step({ type: "cancel" });
    expect(run.named("execute_tool")[0]!.attributes["error.type"]).toBe("cancelled");
    expect(run.named("invoke_agent")[0]!.attributes["error.type"]).toBeDefined();
    expect(run.trace).toBeNull();
  });

  it("the next queued message starts a new trace in the step that ends the first", () => {
    let n = 0;
    const ids = ["a".repeat(32), "b".repeat(32)];
    const run = new ScriptedRun({}, { ...OPTS, newTraceId: () => ids[n++]! });
    run.step({ type: "user_message", message_id: "m1", text: "one", tools: TOOLS });
    run.step({ type: "user_message", message_id: "m2", text: "two", tools: TOOLS });
    run.step({ type: "llm_response", call_id: run.llm(), turn: text("first") });
    expect(run.named("invoke_agent")[0]!.trace_id).toBe(ids[0]);
    expect(run.trace).toMatchObject({ message_id: "m2", trace_id: ids[1] });
  });

  it("a compaction's summary call is its own span in the run's trace", () => {
    const run = new ScriptedRun({ context_tokens: 8000, compact_at: 0.75, keep_recent_turns: 2 });
    const big = "x".repeat(4096);
    for (let n = 1; n <= 20 && run.named("compaction").length === 0; n++) {
      run.step({ type: "user_message", message_id: `m${n}`, text: `turn ${n}`, tools: TOOLS });
      run.step({ type: "llm_response", call_id: run.llm(), turn: calls(["bash", { command: "du" }, `c${n}`]) });
      const compact = only(run.step(run.result(`c${n}`, ok("bash", big))), "compact")[0];
      if (compact) run.step({ type: "compacted", call_id: compact.call_id, summary: "earlier turns" }, 300);
      run.step({ type: "llm_response", call_id: run.llm(), turn: text(`answer ${n}`) });
    }
    const [compaction] = run.named("compaction");
    expect(compaction).toBeDefined();
    const root = run.spans.find((s) => s.name.startsWith("invoke_agent") && s.trace_id === compaction!.trace_id);
    expect(compaction!.parent_span_id).toBe(root!.span_id);
    expect(compaction!.attributes).toMatchObject({
      "edgeloop.compaction.outcome": "compacted",
      "edgeloop.duration_ms": 300,
    });
  });

  it("a direct call's run ends with its call: the call's span has its outcome", () => {
    const run = new ScriptedRun();
    const call = { id: "d1", name: "bash", arguments: JSON.stringify({ command: "ls" }) };
    run.step({ type: "tool_call", message_id: "m1", call, tools: TOOLS });
    run.step(run.result("d1", ok("bash", "a")), 30);
    expect(run.spans.map((s) => s.name)).toEqual(["execute_tool bash", "invoke_agent pi-1"]);
    expect(run.named("execute_tool")[0]!.attributes).toMatchObject({
      "edgeloop.outcome": "success",
      "edgeloop.duration_ms": 30,
    });
  });
});
