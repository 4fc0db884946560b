import { DurableObject } from "cloudflare:workers";
import type { ContentBlock, ConversationEvent, ElicitationReply, ToolOutcome, WaitReply } from "@edgeloop/protocol";
import type { ApprovalRuleMatch } from "@edgeloop/protocol/approval-rules";
import type { HistoryPageQuery } from "@edgeloop/protocol/history-page";
import { log } from "../../runtime/log.js";
import { afterPendingSends } from "../after-pending-sends.js";
import { AlarmSchedule } from "../alarm-schedule.js";
import type { DurableObjectBindings } from "../bindings.js";
import { dueDeadlines, nextAlarmAt } from "./conversation-alarm.js";
import type {
  AnswerApplied,
  AnswerInput,
  ConversationRpc,
  ConversationView,
  DeviceQuestion,
  DirectCallInput,
  DirectCallReply,
  FoundApplied,
  Ownership,
  PostMessageAnswer,
  PostMessageInput,
  StoredCanvas,
} from "./conversation-rpc.js";
import { advance, initialState, type LoopEvent, type LoopState } from "./core/index.js";
import { EffectRunner } from "./effects/effect-runner.js";
import { ModelCalls } from "./effects/model-calls.js";
import { deploymentTokens } from "./mcp/deployment-tokens.js";
import { deviceLink } from "./mcp/device-link.js";
import { RemoteMcpTools } from "./mcp/remote-mcp-tools.js";
import { answerText, ServerQuestions } from "./mcp/server-questions.js";
import {
  agentChangeRefusal,
  approvalRulesFor,
  deviceTools,
  messageDeviceTools,
  messageTools,
  userMessageEvent,
} from "./run-intake.js";
import { type ConversationVars, conversationSettings } from "./settings/conversation-settings.js";
import { type ModelEnv, modelSettings } from "./settings/model-settings.js";
import { ConversationOwner, notFound } from "./storage/conversation-owner.js";
import { ConversationStore } from "./storage/conversation-store.js";
import { storeEventImages } from "./storage/image-intake.js";
import { StepRecorder } from "./storage/step-recorder.js";
import type { TracedStep } from "./tracing/run-spans.js";
import { RunTracer } from "./tracing/run-tracer.js";
import { traceOptions } from "./tracing/trace-options.js";
import { conversationView, ReplyWaiters, waitReplyView } from "./views/conversation-views.js";
import { DeltaBuffer } from "./views/delta-buffer.js";
import { EventStream } from "./views/event-stream.js";

/** What a conversation reads from its environment: the objects it addresses and its own vars. */
export type ConversationEnv = DurableObjectBindings & ConversationVars & ModelEnv;

/** The longest the model's streamed text waits before it is stored and sent to live clients. */
const DELTA_WINDOW_MS = 50;

/**
 * The durable shell around the pure loop core: every event goes through `advance`, and the step it
 * makes is committed before any of its effects is performed (docs/architecture.md#invariants-of-the-shell).
 * This class keeps the RPC surface, the commit and the alarm; storage/, effects/ and views/ hold the rest.
 */
export class ConversationDO extends DurableObject<ConversationEnv> implements ConversationRpc {
  private readonly store: ConversationStore;
  private readonly alarms: AlarmSchedule;
  private readonly recorder: StepRecorder;
  private readonly runner: EffectRunner;
  private readonly modelCalls: ModelCalls;
  private readonly events: EventStream;
  private readonly remoteMcp: RemoteMcpTools;
  private readonly serverQuestions: ServerQuestions;
  private readonly waiters = new ReplyWaiters();
  private readonly owner: ConversationOwner;
  private readonly traces: RunTracer;
  private state: LoopState | null = null;
  /** when this instance started: call deadlines that passed before it are held (see alarm) */
  private readonly startedAt = Date.now();
  /** a step whose write waits for the model call it starts to leave first (see deliverToolResult) */
  private deferredCommit: (() => void) | null = null;
  /** the model's streamed text not yet stored */
  private readonly deltas = new DeltaBuffer(DELTA_WINDOW_MS, () => {
    try {
      this.writeWaiting();
    } catch (e) {
      // A failed step is rolled back (see commitStep); the text still waiting goes with the next write.
      log("warn", "streamed text not stored yet", { conversation_id: this.state?.conversation_id, error: String(e) });
    }
  });

  constructor(ctx: DurableObjectState, env: ConversationEnv) {
    super(ctx, env);
    this.store = new ConversationStore(ctx.storage.sql);
    this.owner = new ConversationOwner(this.store);
    this.alarms = new AlarmSchedule(ctx.storage);
    const model = modelSettings(env);
    this.recorder = new StepRecorder(this.store, {
      model: env.LLM_MODEL ?? (model.ok ? model.value.model : "unknown"),
    });
    this.modelCalls = new ModelCalls(env, (delta) => this.deltas.add(delta), this.store.images);
    this.events = new EventStream(this.store);
    const devices = deviceLink(env, () => this.state);
    this.serverQuestions = new ServerQuestions(this.store, (e) => this.apply(e), devices);
    this.remoteMcp = new RemoteMcpTools(this.store, this.serverQuestions, undefined, deploymentTokens(env));
    this.traces = new RunTracer(this.store, () => traceOptions(env, this.settings().traceToolContent));
    this.runner = new EffectRunner({
      env,
      store: this.store,
      modelCalls: this.modelCalls,
      remoteMcp: this.remoteMcp,
      waitUntil: (work) => ctx.waitUntil(work),
      settings: () => this.settings(),
      state: () => this.current(),
      owner: () => this.owner.get(),
      apply: (event, finishedOutbox) => this.apply(event, finishedOutbox),
      scheduleAlarm: () => this.scheduleAlarm(),
      traceparent: (toolCallId) => this.traces.traceparent(toolCallId),
    });
    void ctx.blockConcurrencyWhile(async () => {
      this.state = this.store.loadState();
      // A server's question waited on a request this restart ended (mcp/server-questions.ts).
      this.serverQuestions.forgetLost();
      // Work started before a restart is re-driven by the alarm: a fast constructor, a set-up object.
      if (this.store.pendingTimes().length > 0) await this.alarms.set(Date.now());
    });
  }

  // ---- RPC from the worker ---------------------------------------------------------------

  async postMessage(input: PostMessageInput): Promise<PostMessageAnswer> {
    if (!this.owner.allows(input.by, this.state !== null)) return notFound(input.conversation_id);
    // Posted again: taken once (docs/architecture.md#at-most-once-by-request-id).
    if (this.state && this.store.tookMessage(input.message_id)) return { ok: true, agent_id: this.state.agent_id };
    if (this.state) {
      const refusal = agentChangeRefusal(this.state, input);
      if (refusal) return refusal;
      // A pool's rebind: the next message runs on the device the pool picked.
      if (this.state.agent_id !== input.agent_id) this.state = { ...this.state, agent_id: input.agent_id };
    }
    const settings = conversationSettings(this.env);
    if (!settings.ok) return { ok: false, status: 500, error: settings.error };
    const devices = await messageDeviceTools(this.env, input);
    if (!devices.ok) return devices;
    const tools = await messageTools(this.remoteMcp, settings.value, input, devices.tools);
    // Checked again after the awaits above, and claimed in the same turn the state is made.
    if (!this.owner.admit(input.by, this.state !== null)) return notFound(input.conversation_id);
    if (!this.state) {
      this.state = initialState(input.conversation_id, input.agent_id, {
        ...(input.loop ?? {}),
        ...settings.value.loop,
      });
      if (input.parent) this.store.putValue("parent", input.parent);
    }
    const config = { ...this.state.config, ...settings.value.loop };
    const owner = this.owner.get()?.id ?? null;
    const rules = await approvalRulesFor(this.env, config, tools, input.agent_id, owner, input.fleet);
    // A repeat that came in while this one awaited the hub has taken it meanwhile.
    if (this.store.tookMessage(input.message_id)) return { ok: true, agent_id: this.state.agent_id };
    this.recorder.rememberReplyTarget(input.message_id, input.reply);
    const event = userMessageEvent(input, tools, rules, settings.value.loop, this.store.images);
    this.apply(event, undefined, () => this.store.takeMessage(input.message_id, Date.now()));
    return { ok: true, agent_id: this.state.agent_id };
  }

  async callTool(input: DirectCallInput): Promise<PostMessageAnswer> {
    if (!this.owner.allows(input.by, this.state !== null)) return notFound(input.conversation_id);
    const busy = this.state?.run && this.state.run.message_id !== input.message_id;
    if (this.state && (this.state.agent_id !== input.agent_id || busy))
      return { ok: false, status: 409, error: `conversation '${input.conversation_id}' is in use` };
    const settings = conversationSettings(this.env);
    if (!settings.ok) return { ok: false, status: 500, error: settings.error };
    const tools = await deviceTools(this.env, input.agent_id);
    if (!this.owner.admit(input.by, this.state !== null)) return notFound(input.conversation_id);
    this.state ??= initialState(input.conversation_id, input.agent_id, settings.value.loop);
    const config = { ...this.state.config, ...settings.value.loop };
    const rules = await approvalRulesFor(this.env, config, tools, input.agent_id, this.owner.get()?.id ?? null);
    const call = { id: input.tool_call_id, name: input.tool, arguments: JSON.stringify(input.arguments) };
    this.apply({ type: "tool_call", message_id: input.message_id, call, tools, ...rules });
    return { ok: true };
  }

  async waitForCall(messageId: string, timeoutMs: number): Promise<DirectCallReply> {
    const view = await this.waitForReply(messageId, timeoutMs);
    const reply = this.state?.replies.find((r) => r.message_id === messageId);
    return { ...view, outcome: reply?.outcome ?? null };
  }

  async approve(
    toolCallId: string,
    approve: boolean,
    reason?: string,
    rule?: ApprovalRuleMatch,
  ): Promise<FoundApplied> {
    const call = this.state?.run?.round?.find((c) => c.id === toolCallId);
    if (!call) return { found: false, applied: false };
    const applied = call.state === "awaiting_approval";
    this.apply({
      type: "approval",
      tool_call_id: toolCallId,
      approve,
      ...(reason ? { reason } : {}),
      ...(rule ? { rule } : {}),
    });
    return { found: true, applied };
  }

  async answer(toolCallId: string, answer: AnswerInput): Promise<AnswerApplied> {
    this.writeWaiting();
    // A remote or device MCP server's question during this call: the answer goes to the server.
    if (this.serverQuestions.has(toolCallId)) return this.serverQuestions.answer(toolCallId, answer);
    const call = this.state?.run?.round?.find((c) => c.id === toolCallId);
    if (!call) return { found: false, applied: false };
    const applied = call.kind === "question" && call.state === "dispatched";
    this.apply({ type: "answer", tool_call_id: toolCallId, text: answerText(answer) });
    return { found: true, applied };
  }

  async getCanvas(): Promise<StoredCanvas | null> {
    this.writeWaiting();
    return this.store.getValue("builtin:canvas");
  }
  async getImage(sha256: string) {
    return this.store.images.get(sha256);
  }

  async waitForReply(messageId: string, timeoutMs: number): Promise<WaitReply> {
    this.writeWaiting();
    const done = this.state?.replies.find((r) => r.message_id === messageId);
    const reply = done || timeoutMs <= 0 ? (done ?? null) : await this.waiters.wait(messageId, timeoutMs);
    return waitReplyView(this.current(), messageId, reply);
  }

  async getConversation(page: Partial<HistoryPageQuery> = {}): Promise<ConversationView | null> {
    this.writeWaiting();
    if (!this.state) return null;
    const questions = this.serverQuestions.views();
    return { ...conversationView(this.state, this.store, page, questions), trace_id: this.traces.traceId() };
  }

  async ownership(): Promise<Ownership> {
    return { exists: this.state !== null, owner: this.state ? (this.owner.get()?.id ?? null) : null };
  }

  async messageState(messageId: string): Promise<"running" | "queued" | "done"> {
    this.writeWaiting();
    if (this.state?.run?.message_id === messageId) return "running";
    return this.state?.queue.some((q) => q.message_id === messageId) ? "queued" : "done";
  }

  async getEvents(afterSeq = 0, limit = 1000): Promise<ConversationEvent[]> {
    this.writeWaiting();
    return this.store.events(afterSeq, limit);
  }

  async cancel(reason?: string): Promise<{ found: boolean; cancelled: boolean }> {
    if (!this.state) return { found: false, cancelled: false };
    const running = this.state.run !== null;
    this.apply({ type: "cancel", ...(reason ? { reason } : {}) });
    return { found: true, cancelled: running };
  }

  /** `GET …/events`, forwarded by the worker: see EventStream. */
  override async fetch(request: Request): Promise<Response> {
    this.writeWaiting();
    return this.events.serve(request, this.state !== null);
  }

  // ---- RPC from the device hub -----------------------------------------------------------

  // The one step whose model call starts before it is written: docs/architecture.md#output-gates.
  async deliverToolResult(toolCallId: string, requestId: string, outcome: ToolOutcome): Promise<void> {
    const step = this.advanceBy({ type: "tool_result", tool_call_id: toolCallId, request_id: requestId, outcome });
    if (!step) return;
    const call = step.effects.find((e) => e.type === "call_llm");
    if (!call || !this.modelCalls.startEarly(call.call_id, call.with_tools, step.state)) return this.commitStep(step);
    this.state = step.state;
    this.deferredCommit = () => this.commitStep(step);
    await afterPendingSends();
    this.writeWaiting();
  }

  /** A device result for a call that had ended: docs/architecture.md#late-results. */
  async deliverLateResult(toolCallId: string, requestId: string, outcome: ToolOutcome): Promise<void> {
    const stored_tool = this.store.olderCallName(this.state, toolCallId);
    const late = { tool_call_id: toolCallId, request_id: requestId, outcome, stored_tool };
    const step = this.advanceBy({ type: "late_tool_result", ...late });
    if (step) this.commitStep(step);
  }

  async deliverProgress(toolCallId: string, _requestId: string, content: ContentBlock[]): Promise<void> {
    this.apply({ type: "tool_progress", tool_call_id: toolCallId, partial: content });
  }

  async askFromDevice(toolCallId: string, question: DeviceQuestion): Promise<ElicitationReply | null> {
    return this.serverQuestions.askDevice(toolCallId, question);
  }

  // ---- the commit --------------------------------------------------------------------------

  /** The state of a conversation that exists (every effect and alarm belongs to one). */
  private current(): LoopState {
    if (!this.state) throw new Error("the conversation does not exist");
    return this.state;
  }

  private settings() {
    const settings = conversationSettings(this.env);
    // A conversation exists only once a message was accepted, which needed valid settings.
    if (!settings.ok) throw new Error(`configuration: ${settings.error}`);
    return settings.value;
  }

  /** `alsoWrite`: more writes that must land in the step's transaction, or not at all. */
  private apply(event: LoopEvent, finishedOutbox?: number, alsoWrite?: () => void): void {
    const step = this.advanceBy(event);
    if (step) this.commitStep(step, finishedOutbox, alsoWrite);
  }

  /** The step `event` makes from the current state, after any step still waiting to be written. */
  private advanceBy(event: LoopEvent): TracedStep | null {
    this.writeWaiting();
    const prev = this.state;
    if (!prev) return null;
    const now = Date.now();
    const stored = storeEventImages(event, this.store.images, prev.conversation_id);
    return { prev, now, event: stored, ...advance(prev, stored, now) };
  }

  /**
   * What waits in memory is written before anything else reads or changes the state, so events
   * stay in order: first a step put off by deliverToolResult, then the model's text streamed since
   * (it comes from the model call that step started).
   */
  private writeWaiting(): void {
    const commit = this.deferredCommit;
    this.deferredCommit = null;
    commit?.();
    const delta = this.deltas.take();
    if (delta) this.events.broadcast([this.store.appendEvent({ type: "message_delta", delta }, Date.now())]);
  }

  // See docs/architecture.md#commit-before-perform.
  private commitStep(step: TracedStep, finishedOutbox?: number, alsoWrite?: () => void): void {
    let recorded: ReturnType<StepRecorder["record"]> | undefined;
    try {
      this.ctx.storage.transactionSync(() => {
        // One log row and the state row for the whole step (and a new message's id, once).
        recorded = this.store.batch(() => {
          alsoWrite?.();
          this.store.saveState(step.state);
          if (finishedOutbox !== undefined) this.store.finishOutbox(finishedOutbox);
          return this.recorder.record(step);
        });
      });
    } catch (e) {
      // See docs/architecture.md#a-failed-step-changes-nothing.
      this.store.afterRollback();
      this.state = step.prev;
      this.modelCalls.dropEarly();
      throw e;
    }
    const { toPerform, emitted, replies } = recorded!;
    this.state = step.state;
    // Before the effects: a dispatch carries the trace of the run this step may start.
    this.traces.afterStep(step);
    for (const reply of replies) this.waiters.resolve(reply);
    this.runner.performAll(toPerform);
    // A call started early whose effect was not performed (already recorded): nobody will read it.
    this.modelCalls.dropEarly();
    this.events.broadcast(emitted);
    void this.scheduleAlarm();
  }

  // ---- the alarm ---------------------------------------------------------------------------

  // See docs/architecture.md#outbox-re-drive.
  override async alarm(): Promise<void> {
    this.writeWaiting();
    // Whatever is still pending gets a new alarm below.
    this.alarms.fired();
    const now = Date.now();
    const window = this.settings().reconnectWindowMs + (this.state?.config.tool_deadline_grace_ms ?? 0);
    for (const key of dueDeadlines(this.store, now, this.startedAt, window)) this.apply({ type: "deadline", key });
    const due = this.store.pendingOutbox().filter((row) => row.next_at <= now && !this.runner.isInflight(row.id));
    for (const row of due) {
      const { type } = row.effect;
      log("info", "re-driving effect", {
        conversation_id: this.state?.conversation_id,
        effect: type,
        attempts: row.attempts,
      });
    }
    this.runner.performAll(due);
    await this.scheduleAlarm();
  }

  private async scheduleAlarm(): Promise<void> {
    const at = nextAlarmAt(this.store, this.runner, Date.now());
    if (at !== null) await this.alarms.atMost(at);
  }
}
