import { randomTraceId } from "@edgeloop/protocol/trace-context";
import { log } from "../../../runtime/log.js";
import type { ConversationStore } from "../storage/conversation-store.js";
import { type RunTrace, type TracedStep, type TraceOptions, toolTraceparent, traceStep } from "./run-spans.js";
import { currentTraceId, recordSpans } from "./runtime-spans.js";

const RUN_KEY = "trace:run";
const LAST_KEY = "trace:last_id";

/**
 * The conversation's tracing shell: keeps the open run's trace context in the conversation's
 * storage (a run outlives the request that started it), feeds each committed step to run-spans.ts
 * and records the spans it ends. Tracing never fails a step: an error here is logged and dropped.
 */
export class RunTracer {
  private trace: RunTrace | null;

  constructor(
    private readonly store: ConversationStore,
    private readonly options: () => Omit<TraceOptions, "newTraceId">,
  ) {
    this.trace = store.getValue<RunTrace>(RUN_KEY);
  }

  afterStep(step: TracedStep): void {
    try {
      const before = this.trace;
      const out = traceStep(before, step, { ...this.options(), newTraceId: () => currentTraceId() ?? randomTraceId() });
      this.trace = out.trace;
      // Stored only when a run's trace starts or ends: a write per step would add rows to every
      // round (bench: cost_per_round). The open spans' start times live in memory; after an
      // eviction a span still open starts at the step that ends it.
      if (out.trace?.trace_id !== before?.trace_id) {
        this.store.putValue(RUN_KEY, out.trace);
        if (out.trace) this.store.putValue(LAST_KEY, out.trace.trace_id);
      }
      recordSpans(out.spans);
    } catch (e) {
      log("warn", "trace not recorded", { conversation_id: step.state.conversation_id, error: String(e) });
    }
  }

  /** The `traceparent` for a call of the open run (undefined outside a run). */
  traceparent(toolCallId: string): string | undefined {
    return this.trace ? toolTraceparent(this.trace, toolCallId) : undefined;
  }

  /** The open run's trace id, else the latest run's. */
  traceId(): string | null {
    return this.trace?.trace_id ?? this.store.getValue<string>(LAST_KEY);
  }
}
