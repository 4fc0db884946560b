import type { ToolCallSummary } from "@edgeloop/protocol";
import { formatTraceparent, spanIdFor } from "@edgeloop/protocol/trace-context";
import type { CallOutcome, Effect, LoopEvent, LoopState, RoundCall } from "../core/index.js";

/**
 * A run's spans, named by the OpenTelemetry GenAI conventions (docs/tracing.md; the invariant:
 * docs/architecture.md#a-runs-trace), worked out from
 * the loop's steps alone: pure, so a scripted run's trace is unit-tested in Node. A run outlives any
 * one request (its steps come from RPCs, the hub and alarms), so its trace context is kept with the
 * run (`RunTrace`, stored by the conversation) and each span is recorded in the step that ends it,
 * with its start, duration and parent as attributes; span ids are derived from the trace id and
 * the work's key, so a re-driven command carries the same `traceparent` as the first.
 */

export type SpanAttributes = Record<string, string | number | boolean>;

export type SpanRecord = {
  name: string;
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  start_ms: number;
  end_ms: number;
  attributes: SpanAttributes;
};

/** The run's trace context and the spans it has open (key → start time), stored with the run. */
export type RunTrace = {
  message_id: string;
  trace_id: string;
  sampled: boolean;
  started_at: number;
  open: Record<string, number>;
};

export type TraceOptions = {
  /** `gen_ai.provider.name` (openai, anthropic, cloudflare.workers_ai) */
  provider: string;
  model: string;
  /** TRACE_TOOL_CONTENT: tool arguments and results on the spans */
  content: boolean;
  /** a trace id for a run that starts in this step */
  newTraceId: () => string;
};

export type TracedStep = { prev: LoopState; state: LoopState; event: LoopEvent; effects: Effect[]; now: number };

const CONTENT_MAX_CHARS = 4000;

export const rootSpanId = (t: Pick<RunTrace, "trace_id">): string => spanIdFor(t.trace_id, "run");
const toolKey = (id: string) => `tool:${id}`;

/** The `traceparent` a tool call carries to the device or MCP server: its `execute_tool` span. */
export function toolTraceparent(trace: RunTrace, toolCallId: string): string {
  return formatTraceparent({
    trace_id: trace.trace_id,
    span_id: spanIdFor(trace.trace_id, toolKey(toolCallId)),
    sampled: trace.sampled,
  });
}

/** The spans `step` ends, and the run's trace after it (null once no run is open). */
export function traceStep(
  trace: RunTrace | null,
  step: TracedStep,
  opts: TraceOptions,
): { trace: RunTrace | null; spans: SpanRecord[] } {
  const { prev, state, now } = step;
  const spans: SpanRecord[] = [];
  const ended = prev.run && (!state.run || state.run.message_id !== prev.run.message_id) ? prev.run : null;
  let current = trace && trace.message_id === prev.run?.message_id ? { ...trace, open: { ...trace.open } } : null;
  const span = (t: RunTrace, key: string, name: string, parent: string | null, attributes: SpanAttributes) => {
    const start = t.open[key] ?? now;
    delete t.open[key];
    const span_id = key === "run" ? rootSpanId(t) : spanIdFor(t.trace_id, key);
    spans.push({
      name,
      trace_id: t.trace_id,
      span_id,
      parent_span_id: parent,
      start_ms: start,
      end_ms: now,
      attributes: {
        "gen_ai.conversation.id": state.conversation_id,
        ...attributes,
        "edgeloop.trace_id": t.trace_id,
        "edgeloop.span_id": span_id,
        ...(parent ? { "edgeloop.parent_span_id": parent } : {}),
        "edgeloop.start_ms": start,
        "edgeloop.duration_ms": now - start,
      },
    });
  };
  const model = { "gen_ai.provider.name": opts.provider, "gen_ai.request.model": opts.model };

  if (current) {
    const root = rootSpanId(current);
    // Model calls and compactions that ended in this step.
    const ev = step.event;
    if (ev.type === "llm_response" || ev.type === "llm_failed") {
      const usage = ev.type === "llm_response" ? ev.turn.usage : undefined;
      const finish = ev.type === "llm_response" ? ev.turn.finishReason : undefined;
      span(current, `chat:${ev.call_id}`, `chat ${opts.model}`, root, {
        "gen_ai.operation.name": "chat",
        ...model,
        ...(usage
          ? { "gen_ai.usage.input_tokens": usage.prompt_tokens, "gen_ai.usage.output_tokens": usage.completion_tokens }
          : {}),
        ...(finish ? { "gen_ai.response.finish_reasons": JSON.stringify([finish]) } : {}),
        ...(ev.type === "llm_failed" ? { "error.type": llmErrorType(ev.error) } : {}),
      });
    }
    if (ev.type === "compacted" || ev.type === "compaction_failed") {
      span(current, `compact:${ev.call_id}`, "compaction", root, {
        "gen_ai.operation.name": "chat",
        ...model,
        "edgeloop.compaction.outcome": ev.type === "compacted" ? "compacted" : "failed",
        ...(ev.type === "compaction_failed" ? { "error.type": "compaction_failed" } : {}),
      });
    }
    // Tool calls: an approval wait that ended, a call that finished (or was dropped with its run).
    const before = prev.run?.round ?? [];
    const round = state.run?.message_id === current.message_id ? (state.run.round ?? []) : [];
    const after = new Map(round.map((c) => [c.id, c]));
    // A round's calls leave the state with the round; how each ended is in the run's summaries.
    const summaries = new Map(
      (state.run?.message_id === current.message_id
        ? state.run.tool_calls
        : (state.replies.find((r) => r.message_id === current?.message_id)?.tool_calls ?? [])
      ).map((c) => [c.id, c]),
    );
    for (const old of before) {
      const now_ = after.get(old.id);
      const toolSpan = spanIdFor(current.trace_id, toolKey(old.id));
      const summary = summaries.get(old.id);
      const finished = now_ ? now_.state === "done" : summary !== undefined && summary.status !== "pending";
      if (old.state === "awaiting_approval" && now_?.state !== "awaiting_approval") {
        span(current, `approval:${old.id}`, `await_approval ${old.name}`, toolSpan, {
          "gen_ai.tool.name": old.name,
          "gen_ai.tool.call.id": old.id,
          "edgeloop.approval.approved": summary?.status !== "blocked" && now_?.outcome?.status !== "blocked",
          ...(now_?.decided_by ? { "edgeloop.approval.decided_by": now_.decided_by } : {}),
        });
      }
      if (old.state !== "done" && (finished || !now_)) {
        const outcome = now_?.outcome ?? (ev.type === "tool_result" && ev.tool_call_id === old.id ? ev.outcome : null);
        const ending = finished ? (outcome ?? summary ?? null) : null;
        span(
          current,
          toolKey(old.id),
          `execute_tool ${old.name}`,
          root,
          toolAttributes(now_ ?? old, ending, state, opts),
        );
      }
    }
  }

  if (ended && current) {
    const reply = state.replies.find((r) => r.message_id === ended.message_id);
    for (const key of Object.keys(current.open)) if (key !== "run") delete current.open[key];
    span(current, "run", `invoke_agent ${state.agent_id}`, null, {
      "gen_ai.operation.name": "invoke_agent",
      ...model,
      "gen_ai.agent.id": state.agent_id,
      "gen_ai.agent.name": state.agent_id,
      "edgeloop.message_id": ended.message_id,
      "edgeloop.iterations": reply?.iterations ?? ended.iteration,
      "gen_ai.usage.input_tokens": reply?.metrics?.tokens_in ?? ended.tokens_in,
      "gen_ai.usage.output_tokens": reply?.metrics?.tokens_out ?? ended.tokens_out,
      ...(reply ? { "edgeloop.stop_reason": reply.stop_reason } : {}),
      ...(reply?.status !== "completed" ? { "error.type": reply?.stop_reason ?? "cancel" } : {}),
    });
    current = null;
  }

  // A run that starts in this step (a new message, or the next queued one after a run ended).
  if (state.run && (!current || current.message_id !== state.run.message_id)) {
    current = {
      message_id: state.run.message_id,
      trace_id: opts.newTraceId(),
      sampled: true,
      started_at: now,
      open: { run: now },
    };
  }
  if (current && state.run) opens(current, step, state.run.round ?? [], now);
  return { trace: current, spans };
}

/** Start times of the work this step begins: model calls, compactions, new tool calls, approval waits. */
function opens(t: RunTrace, step: TracedStep, round: RoundCall[], now: number): void {
  for (const e of step.effects) {
    if (e.type === "call_llm") t.open[`chat:${e.call_id}`] ??= now;
    if (e.type === "compact") t.open[`compact:${e.call_id}`] ??= now;
  }
  const seen = new Set(
    (step.prev.run?.message_id === t.message_id ? (step.prev.run.round ?? []) : []).map((c) => c.id),
  );
  for (const c of round) {
    if (seen.has(c.id)) continue;
    t.open[toolKey(c.id)] ??= now;
    if (c.state === "awaiting_approval") t.open[`approval:${c.id}`] ??= now;
  }
}

/** How a call ended: its outcome when at hand, else the run's summary of it; null: dropped unfinished. */
type Ending = CallOutcome | ToolCallSummary | null;

function toolAttributes(call: RoundCall, ending: Ending, state: LoopState, opts: TraceOptions): SpanAttributes {
  const status = ending?.status ?? "cancelled";
  const errorType =
    status === "error"
      ? ((ending as { error_type?: string }).error_type ?? "_OTHER")
      : status === "blocked" || status === "cancelled"
        ? status
        : null;
  const attrs: SpanAttributes = {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": call.name,
    "gen_ai.tool.call.id": call.id,
    // Device tools run on the client side (the spec's `function`); the rest run in edgeloop.
    "gen_ai.tool.type": call.kind === "device" ? "function" : "extension",
    "edgeloop.tool.kind": call.kind,
    "edgeloop.request_id": call.request_id,
    "edgeloop.outcome": status,
    ...(call.kind === "device" ? { "edgeloop.device.id": state.agent_id } : {}),
    ...(errorType ? { "error.type": errorType } : {}),
    ...(call.decided_by ? { "edgeloop.approval.decided_by": call.decided_by } : {}),
  };
  if (opts.content) {
    attrs["gen_ai.tool.call.arguments"] = call.raw_arguments.slice(0, CONTENT_MAX_CHARS);
    if (ending && "result" in ending && ending.status === "success")
      attrs["gen_ai.tool.call.result"] = ending.result.slice(0, CONTENT_MAX_CHARS);
  }
  return attrs;
}

/** A low-cardinality class for a failed model call (the message itself varies). */
function llmErrorType(error: string): string {
  if (/timed? ?out|timeout/i.test(error)) return "timeout";
  const status = /\b([45]\d\d)\b/.exec(error);
  return status ? status[1]! : "_OTHER";
}
