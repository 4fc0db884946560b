import { DurableObject } from "cloudflare:workers";
import {
  type ContentBlock,
  type ConversationEvent,
  type ToolOutcome,
  toOpenAITool,
  toolSpecsFromSkills,
  type WaitReply,
} from "../../protocol/index.js";
import { readConfig } from "../../worker/config.js";
import type { Env } from "../../worker/env.js";
import { log } from "../../worker/log.js";
import { afterPendingSends } from "../after-pending-sends.js";
import { AlarmSchedule } from "../alarm-schedule.js";
import type { DispatchCommand } from "../device-hub/device-hub-do.js";
import { metricsShards, type RunRecord, shardFor } from "../metrics/aggregate.js";
import { builtinContext } from "./builtin-context.js";
import { BUILTINS, builtinToolSpecs, findBuiltin, questionToolSpec } from "./builtins/index.js";
import { parseWebhookTools, runWebhookTool, webhookToolSpecs } from "./builtins/webhook-tools.js";
import { ConversationStore, type OutboundEffect, outboxKey, type ParentLink } from "./conversation-store.js";
import {
  advance,
  type FinishedReply,
  initialState,
  type LoopConfig,
  type LoopEvent,
  type LoopState,
} from "./core/index.js";
import { DeltaBuffer } from "./delta-buffer.js";
import { callLlm, type LlmResult, memoByIdentity } from "./llm/index.js";
import { loopConfigFromEnv } from "./loop-config.js";
import { deliverSigned, REPLY_EXPIRY_MS, type ReplyTarget, replyBackoffMs } from "./reply-delivery.js";

/**
 * A message's tool list in the API's shape, made once per list: the state keeps the same array
 * for every step of a message, so the model request's JSON of it is made once too (request-json.ts).
 */
const apiTools = memoByIdentity((tools: LoopState["tools"]) => tools.map(toOpenAITool));

type DispatchEffect = Extract<OutboundEffect, { type: "dispatch_tool" }>;

/** One event's step: the state before, the state after and the effects, computed at `now`. */
type Step = { prev: LoopState; state: LoopState; effects: ReturnType<typeof advance>["effects"]; now: number };

export type PostMessageInput = {
  conversation_id: string;
  agent_id: string;
  message_id: string;
  text: string;
  /** limits a parent passes to its sub-task; the deployment's vars (read here) win over them */
  loop?: Partial<LoopConfig>;
  options?: Partial<
    Pick<LoopConfig, "max_iterations" | "tool_error_limit" | "max_tokens" | "max_wall_ms" | "citations">
  >;
  /** set when this conversation is a sub-task (`task`) of another */
  parent?: ParentLink;
  /** POST the reply (and events, if asked) to this URL */
  reply?: ReplyTarget;
  /** routed through a pool: the conversation may move to the device the pool picked now */
  rebind?: boolean;
};

export type ConversationView = {
  conversation_id: string;
  agent_id: string;
  status: LoopState["status"];
  messages: LoopState["messages"];
  replies: FinishedReply[];
  pending_tool_calls: { id: string; name: string; state: string; args: Record<string, unknown> | null }[];
  queued_messages: number;
};

/** While an outbound effect runs, look again this often: a restart loses in-memory work. */
const WATCHDOG_MS = 30_000;
const RETRY_BASE_MS = 1_000;
/** The longest the model's streamed text waits before it is stored and sent to live clients. */
const DELTA_WINDOW_MS = 50;

/**
 * The durable shell around the pure loop core: every event goes through `advance`; the new state
 * and the effects it asks for are written to SQLite in one transaction before any effect is
 * performed; outbound effects stay in the outbox until they finish, and the alarm re-drives any
 * that a restart interrupted.
 */
export class ConversationDO extends DurableObject<Env> {
  private readonly store: ConversationStore;
  private state: LoopState | null = null;
  /** outbox rows being performed by this instance (lost on restart, which is the point) */
  private readonly inflight = new Set<number>();
  private readonly waiters = new Map<string, Set<(r: FinishedReply) => void>>();
  private workerConfig: ReturnType<typeof readConfig> | null = null;
  /** `reply_url` targets by message id: read for every event, and this object is their only writer */
  private readonly replyTargets = new Map<string, ReplyTarget | null>();
  private readonly alarms: AlarmSchedule;
  /** a step whose write waits for the model call it starts to leave first (see deliverToolResult) */
  private deferredCommit: (() => void) | null = null;
  /** the model call started before its step was written (at most one: the step is written next) */
  private earlyModelCall: { callId: string; result: Promise<LlmResult> } | null = null;
  /** the model's streamed text not yet stored */
  private readonly deltas = new DeltaBuffer(DELTA_WINDOW_MS, () => {
    try {
      this.writeWaiting();
    } catch (e) {
      // A failed step is rolled back (see commitStep); the text still waiting goes with the next write.
      log("warn", "streamed text not stored yet", { conversation_id: this.state?.conversation_id, error: String(e) });
    }
  });

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new ConversationStore(ctx.storage.sql);
    this.alarms = new AlarmSchedule(ctx.storage);
    void ctx.blockConcurrencyWhile(async () => {
      this.state = this.store.loadState();
      // Work that was started before a restart is picked up by the alarm, not here, so the
      // constructor stays fast and the re-drive runs with the object fully set up.
      if (this.store.pendingTimes().length > 0) await this.alarms.set(Date.now());
    });
  }

  // ---- RPC from the worker ---------------------------------------------------------------

  /** Refusals say whether the message conflicts with the conversation (409) or the deployment is misconfigured (500). */
  async postMessage(input: PostMessageInput): Promise<{ ok: true } | { ok: false; status: 409 | 500; error: string }> {
    if (this.state && this.state.agent_id !== input.agent_id) {
      if (!input.rebind)
        return {
          ok: false,
          status: 409,
          error: `conversation '${input.conversation_id}' belongs to agent '${this.state.agent_id}'`,
        };
      if (this.state.run)
        return {
          ok: false,
          status: 409,
          error: `conversation '${input.conversation_id}' is still running on agent '${this.state.agent_id}'`,
        };
      // The pool's device went away: the next message runs on the one the pool picked.
      this.state = { ...this.state, agent_id: input.agent_id };
    }
    const envConfig = loopConfigFromEnv(this.env);
    if (!envConfig.ok) return { ok: false, status: 500, error: envConfig.error };
    const webhooks = parseWebhookTools(this.env.WEBHOOK_TOOLS);
    if (!webhooks.ok) return { ok: false, status: 500, error: `WEBHOOK_TOOLS: ${webhooks.error}` };
    const hub = this.env.DEVICE_HUB.get(this.env.DEVICE_HUB.idFromName(input.agent_id));
    const skills = await hub.getSkills(input.agent_id);
    // The model sees the device's tools, then the orchestrator's; a device tool wins a name clash.
    const deviceTools = toolSpecsFromSkills(skills);
    const taken = new Set(deviceTools.map((t) => t.name));
    const tools = [
      ...deviceTools,
      ...[...builtinToolSpecs(BUILTINS), questionToolSpec, ...webhookToolSpecs(webhooks.tools)].filter(
        (t) => !taken.has(t.name) && taken.add(t.name),
      ),
    ];
    if (!this.state) {
      this.state = initialState(input.conversation_id, input.agent_id, { ...(input.loop ?? {}), ...envConfig.config });
      if (input.parent) this.store.putValue("parent", input.parent);
    }
    if (input.reply) this.store.putValue(`reply:${input.message_id}`, input.reply);
    this.replyTargets.set(input.message_id, input.reply ?? null);
    this.apply({
      type: "user_message",
      message_id: input.message_id,
      text: input.text,
      tools,
      ...(input.options ? { config: input.options } : {}),
    });
    return { ok: true };
  }

  /** A person's decision on an approval-required call. */
  async approve(toolCallId: string, approve: boolean, reason?: string): Promise<{ found: boolean; applied: boolean }> {
    const call = this.state?.run?.round?.find((c) => c.id === toolCallId);
    if (!call) return { found: false, applied: false };
    const applied = call.state === "awaiting_approval";
    this.apply({ type: "approval", tool_call_id: toolCallId, approve, ...(reason ? { reason } : {}) });
    return { found: true, applied };
  }

  /** The user's answer to a `question` call. */
  async answer(toolCallId: string, text: string): Promise<{ found: boolean; applied: boolean }> {
    const call = this.state?.run?.round?.find((c) => c.id === toolCallId);
    if (!call) return { found: false, applied: false };
    const applied = call.kind === "question" && call.state === "dispatched";
    this.apply({ type: "answer", tool_call_id: toolCallId, text });
    return { found: true, applied };
  }

  async getCanvas(): Promise<{ title: string; format: string; content: string; updated_at: number } | null> {
    this.writeWaiting();
    return this.store.getValue("builtin:canvas");
  }

  /** Resolves with the reply to `messageId`, or with the state so far after `timeoutMs`. */
  async waitForReply(messageId: string, timeoutMs: number): Promise<WaitReply> {
    this.writeWaiting();
    const done = this.state?.replies.find((r) => r.message_id === messageId);
    if (done || timeoutMs <= 0) return this.replyView(messageId, done ?? null);
    const reply = await new Promise<FinishedReply | null>((resolve) => {
      const waiters = this.waiters.get(messageId) ?? new Set();
      const timer = setTimeout(() => {
        waiters.delete(onReply);
        resolve(null);
      }, timeoutMs);
      const onReply = (r: FinishedReply) => {
        clearTimeout(timer);
        resolve(r);
      };
      waiters.add(onReply);
      this.waiters.set(messageId, waiters);
    });
    return this.replyView(messageId, reply);
  }

  async getConversation(): Promise<ConversationView | null> {
    this.writeWaiting();
    const s = this.state;
    if (!s) return null;
    return {
      conversation_id: s.conversation_id,
      agent_id: s.agent_id,
      status: s.status,
      messages: s.messages,
      replies: s.replies,
      pending_tool_calls: (s.run?.round ?? [])
        .filter((c) => c.state !== "done")
        .map((c) => ({
          id: c.id,
          name: c.name,
          state: c.kind === "question" && c.state === "dispatched" ? "awaiting_answer" : c.state,
          args: c.args,
        })),
      queued_messages: s.queue.length,
    };
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

  // ---- RPC from the device hub -----------------------------------------------------------

  /**
   * The step a result completes usually ends in a model call, and the call is started before the
   * step is written: anything sent while a write is pending waits for it to be durable. The answer
   * to the hub still waits for the write, so until then the hub keeps the result and delivers it
   * again after a restart; a restart in between only repeats the model call.
   */
  async deliverToolResult(toolCallId: string, requestId: string, outcome: ToolOutcome): Promise<void> {
    const step = this.advanceBy({ type: "tool_result", tool_call_id: toolCallId, request_id: requestId, outcome });
    if (!step) return;
    const call = step.effects.find((e) => e.type === "call_llm");
    const started = call ? this.startModelCall(call.call_id, call.with_tools, step.state) : null;
    if (!call || !started) return this.commitStep(step);
    this.state = step.state;
    this.earlyModelCall = { callId: call.call_id, result: started };
    this.deferredCommit = () => this.commitStep(step);
    await afterPendingSends();
    this.writeWaiting();
  }

  async deliverProgress(toolCallId: string, _requestId: string, content: ContentBlock[]): Promise<void> {
    if (!this.state) return;
    this.apply({ type: "tool_progress", tool_call_id: toolCallId, partial: content });
  }

  // ---- the shell -------------------------------------------------------------------------

  private apply(event: LoopEvent, finishedOutbox?: number): void {
    const step = this.advanceBy(event);
    if (step) this.commitStep(step, finishedOutbox);
  }

  /** The step `event` makes from the current state, after any step still waiting to be written. */
  private advanceBy(event: LoopEvent): Step | null {
    this.writeWaiting();
    const prev = this.state;
    if (!prev) return null;
    const now = Date.now();
    return { prev, now, ...advance(prev, event, now) };
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
    if (delta) this.broadcast([this.store.appendEvent({ type: "message_delta", delta }, Date.now())]);
  }

  private commitStep({ prev, state, effects, now }: Step, finishedOutbox?: number): void {
    const toPerform: { id: number; effect: OutboundEffect }[] = [];
    const emitted: ConversationEvent[] = [];
    const replies: FinishedReply[] = [];
    try {
      this.ctx.storage.transactionSync(() => {
        this.store.saveState(state);
        if (finishedOutbox !== undefined) this.store.finishOutbox(finishedOutbox);
        for (const effect of effects) {
          switch (effect.type) {
            case "emit_event": {
              const stored = this.store.appendEvent(effect.event, now);
              emitted.push(stored);
              // The run an event belongs to: the one it starts, else the one that was going.
              const runMessage =
                effect.event.type === "message_start" || effect.event.type === "conversation_end"
                  ? effect.event.message_id
                  : (prev.run?.message_id ?? state.run?.message_id ?? null);
              const target = runMessage ? this.replyTarget(runMessage) : null;
              if (target?.events && effect.event.type !== "conversation_end") {
                this.enqueue(
                  toPerform,
                  {
                    type: "deliver_reply",
                    key: `event:${stored.seq}`,
                    url: target.url,
                    payload: { type: "event", conversation_id: state.conversation_id, event: stored },
                    first_at: now,
                  },
                  now,
                );
              }
              if (effect.event.type === "message_start")
                this.indexConversation(toPerform, effect.event.message_id, "running", effect.event.text, now, null);
              break;
            }
            case "set_deadline":
              this.store.setDeadline(effect.key, effect.at);
              break;
            case "clear_deadline":
              this.store.clearDeadline(effect.key);
              break;
            case "reply": {
              replies.push(effect.reply);
              const target = this.replyTarget(effect.reply.message_id);
              if (target) {
                this.enqueue(
                  toPerform,
                  {
                    type: "deliver_reply",
                    key: `${effect.reply.message_id}:reply`,
                    url: target.url,
                    payload: { type: "reply", conversation_id: state.conversation_id, ...effect.reply },
                    first_at: now,
                  },
                  now,
                );
              }
              const m = effect.reply.metrics;
              this.indexConversation(
                toPerform,
                effect.reply.message_id,
                effect.reply.status,
                effect.reply.reply,
                now,
                m
                  ? {
                      at: now,
                      model: this.env.LLM_MODEL ?? "unknown",
                      agent_id: state.agent_id,
                      status: effect.reply.status,
                      stop_reason: effect.reply.stop_reason,
                      ...m,
                    }
                  : null,
              );
              const parent = this.store.getValue<ParentLink>("parent");
              if (parent) {
                this.enqueue(
                  toPerform,
                  {
                    type: "notify_parent",
                    message_id: effect.reply.message_id,
                    parent,
                    outcome: subtaskOutcome(effect.reply),
                  },
                  now,
                );
              }
              break;
            }
            default:
              this.enqueue(toPerform, effect, now);
          }
        }
      });
    } catch (e) {
      // Nothing of the step happened (a step put off by deliverToolResult had already moved the state).
      this.store.afterRollback();
      this.state = prev;
      this.earlyModelCall = null;
      throw e;
    }
    this.state = state;
    for (const reply of replies) this.resolveWaiters(reply);
    this.performAll(toPerform);
    // A call started early whose effect was not performed (already recorded): nobody will read it.
    this.earlyModelCall = null;
    this.broadcast(emitted);
    void this.scheduleAlarm();
  }

  /** Effects to start; the tool dispatches among them (a model's parallel calls) go to the hub in one call. */
  private performAll(items: { id: number; effect: OutboundEffect }[]): void {
    const dispatches: { id: number; effect: DispatchEffect }[] = [];
    for (const { id, effect } of items) {
      if (effect.type !== "dispatch_tool") this.perform(id, effect);
      else if (!this.inflight.has(id)) dispatches.push({ id, effect });
    }
    if (dispatches.length > 0) this.performDispatches(dispatches);
  }

  /** One hub event and one commit for the whole round, instead of one per call. */
  private performDispatches(items: { id: number; effect: DispatchEffect }[]): void {
    for (const { id } of items) this.inflight.add(id);
    const run = async () => {
      try {
        await this.hub().dispatchBatch(items.map(({ effect }) => this.dispatchCommand(effect)));
        for (const { id } of items) this.store.finishOutboxLater(id);
      } catch (e) {
        for (const { id, effect } of items) this.retryLater(id, effect, e);
      } finally {
        for (const { id } of items) this.inflight.delete(id);
        await this.scheduleAlarm();
      }
    };
    this.ctx.waitUntil(run());
  }

  private dispatchCommand(effect: DispatchEffect): DispatchCommand {
    return {
      request_id: effect.request_id,
      conversation_id: this.state!.conversation_id,
      tool_call_id: effect.tool_call_id,
      tool: effect.tool,
      parameters: effect.parameters,
      timeout_ms: effect.timeout_ms,
    };
  }

  private retryLater(id: number, effect: OutboundEffect, e: unknown): void {
    const attempts = this.store.attempts(id) + 1;
    const delay = Math.min(RETRY_BASE_MS * 2 ** attempts, 60_000);
    this.store.retryOutboxLater(id, Date.now() + delay);
    log("warn", "effect failed, will retry", {
      conversation_id: this.state?.conversation_id,
      effect: effect.type,
      attempts,
      error: String(e),
    });
  }

  private perform(id: number, effect: Exclude<OutboundEffect, DispatchEffect>): void {
    if (this.inflight.has(id)) return;
    this.inflight.add(id);
    const run = async () => {
      try {
        switch (effect.type) {
          case "call_llm":
            return await this.performLlmCall(id, effect.call_id, effect.with_tools);
          case "cancel_tool":
            await this.hub().cancel(effect.request_id);
            this.store.finishOutbox(id);
            return;
          case "run_builtin":
            return await this.performBuiltin(id, effect);
          case "deliver_reply": {
            const secret = replySigningSecret(this.env);
            const sent = await deliverSigned(
              effect.url,
              `${this.state!.conversation_id}:${effect.key}`,
              effect.payload,
              secret,
            );
            if (sent.ok || !sent.retryable || Date.now() - effect.first_at > REPLY_EXPIRY_MS) {
              if (!sent.ok)
                log("warn", "reply delivery given up", {
                  conversation_id: this.state!.conversation_id,
                  key: effect.key,
                  error: sent.error,
                });
              this.store.finishOutbox(id);
            } else {
              const attempts = this.store.attempts(id) + 1;
              this.store.retryOutboxLater(id, Date.now() + replyBackoffMs(attempts));
              log("info", "reply delivery failed, will retry", {
                conversation_id: this.state!.conversation_id,
                key: effect.key,
                attempts,
                error: sent.error,
              });
            }
            return;
          }
          case "record_metrics": {
            const s = this.state!;
            const ns = this.env.METRICS_SHARD!;
            const shard = ns.get(ns.idFromName(`shard-${shardFor(s.conversation_id, metricsShards(this.env))}`));
            await shard.upsertConversation({
              conversation_id: s.conversation_id,
              agent_id: s.agent_id,
              status: effect.status,
              created_at: effect.at,
              updated_at: effect.at,
              last_text: effect.text?.slice(0, 200) ?? null,
            });
            if (effect.run) await shard.record(effect.message_id, effect.run);
            this.store.finishOutbox(id);
            return;
          }
          case "notify_parent": {
            const parent = this.env.CONVERSATION.get(this.env.CONVERSATION.idFromName(effect.parent.conversation_id));
            await parent.deliverToolResult(effect.parent.tool_call_id, effect.parent.request_id, effect.outcome);
            this.store.finishOutbox(id);
            return;
          }
        }
      } catch (e) {
        this.retryLater(id, effect, e);
      } finally {
        this.inflight.delete(id);
        // Rescheduled only now: while in flight, a row only gets the watchdog time.
        await this.scheduleAlarm();
      }
    };
    this.ctx.waitUntil(run());
  }

  private async performLlmCall(outboxId: number, callId: string, withTools: boolean): Promise<void> {
    const state = this.state!;
    const early = this.earlyModelCall?.callId === callId ? this.earlyModelCall.result : null;
    if (early) this.earlyModelCall = null;
    const call = early ?? this.startModelCall(callId, withTools, state);
    if (!call) {
      const cfg = this.workerConfig!;
      const error = cfg.ok ? "OPENAI_BASE_URL is not set" : `configuration: ${cfg.error}`;
      this.apply({ type: "llm_failed", call_id: callId, error }, outboxId);
      return;
    }
    const result = await call;
    if (this.state?.run?.awaiting_llm !== callId) {
      this.store.finishOutbox(outboxId);
      return;
    }
    if (result.ok) this.apply({ type: "llm_response", call_id: callId, turn: result.turn }, outboxId);
    else {
      log("error", "llm call failed", { conversation_id: state.conversation_id, call_id: callId, error: result.error });
      this.apply({ type: "llm_failed", call_id: callId, error: result.error.message }, outboxId);
    }
  }

  /** The model call for `state`, or null when the configuration has no usable model. */
  private startModelCall(callId: string, withTools: boolean, state: LoopState): Promise<LlmResult> | null {
    // Vars cannot change while the object lives: parse them once, not on every model call.
    this.workerConfig ??= readConfig(this.env);
    const cfg = this.workerConfig;
    if (!cfg.ok || !cfg.config.OPENAI_BASE_URL) return null;
    const c = cfg.config;
    return callLlm(
      {
        baseURL: c.OPENAI_BASE_URL!,
        apiKey: c.OPENAI_API_KEY ?? "not-needed",
        model: c.LLM_MODEL,
        maxRetries: c.LLM_MAX_RETRIES,
        timeoutMs: c.LLM_TIMEOUT_MS,
        toolProtocol: c.LLM_TOOL_PROTOCOL,
      },
      { messages: state.messages, tools: withTools ? apiTools(state.tools) : [] },
      {
        idSeed: callId.replace(/[^A-Za-z0-9]/g, "").slice(-24),
        // Stored as events (not loop state), a few times a second: see DeltaBuffer.
        onDelta: (delta: string) => this.deltas.add(delta),
      },
    );
  }

  /**
   * Built-ins and webhook tools run here. A thrown error is an internal error (seed 002): logged
   * with its detail, while the model only learns that the tool failed.
   */
  private async performBuiltin(
    outboxId: number,
    effect: Extract<OutboundEffect, { type: "run_builtin" }>,
  ): Promise<void> {
    const state = this.state!;
    let outcome: ToolOutcome | null;
    try {
      const builtin = findBuiltin(effect.tool);
      if (builtin) {
        const ctx = builtinContext({
          env: this.env,
          store: this.store,
          conversation_id: state.conversation_id,
          agent_id: state.agent_id,
          tool_call_id: effect.tool_call_id,
          request_id: effect.request_id,
          startSubtask: (text, agentId) => this.startSubtask(effect.tool_call_id, effect.request_id, text, agentId),
        });
        const result = await builtin.run(effect.parameters, ctx);
        outcome = result.kind === "done" ? result.outcome : null;
      } else {
        const webhooks = parseWebhookTools(this.env.WEBHOOK_TOOLS);
        const tool = webhooks.ok ? webhooks.tools.find((t) => t.name === effect.tool) : undefined;
        outcome = tool
          ? await runWebhookTool(tool, effect.parameters, {
              request_id: effect.request_id,
              tool_call_id: effect.tool_call_id,
              conversation_id: state.conversation_id,
              allowHttp: this.env.ALLOW_HTTP_WEBHOOK_TOOLS === "true",
              now: () => Date.now(),
            })
          : {
              status: "error",
              tool: effect.tool,
              error: `Tool '${effect.tool}' is not available in the orchestrator`,
              error_type: "not_found",
            };
      }
    } catch (e) {
      const incident = crypto.randomUUID();
      log("error", "built-in tool failed", {
        conversation_id: state.conversation_id,
        tool: effect.tool,
        request_id: effect.request_id,
        incident,
        error: String(e),
        stack: (e as Error).stack,
      });
      outcome = {
        status: "error",
        tool: effect.tool,
        error: `internal error (incident ${incident})`,
        error_type: "execution_failed",
      };
    }
    if (outcome)
      this.apply(
        { type: "tool_result", tool_call_id: effect.tool_call_id, request_id: effect.request_id, outcome },
        outboxId,
      );
    else this.store.finishOutbox(outboxId);
  }

  /** `task`: a child conversation with its own loop; its reply comes back through notify_parent. */
  private async startSubtask(
    toolCallId: string,
    requestId: string,
    text: string,
    agentId: string,
  ): Promise<{ conversation_id: string }> {
    const state = this.state!;
    // Derived from the request id, so a re-driven call finds the same child instead of a second one.
    const conversation_id = `task_${requestId.replace(/[^A-Za-z0-9]/g, "").slice(-40)}`;
    const child = this.env.CONVERSATION.get(this.env.CONVERSATION.idFromName(conversation_id));
    const existing = await child.getConversation();
    if (!existing) {
      const res = await child.postMessage({
        conversation_id,
        agent_id: agentId,
        message_id: `msg_${crypto.randomUUID()}`,
        text,
        loop: { max_iterations: state.config.max_iterations, tool_error_limit: state.config.tool_error_limit },
        parent: { conversation_id: state.conversation_id, tool_call_id: toolCallId, request_id: requestId },
      });
      if (!res.ok) throw new Error(`sub-task not started: ${res.error}`);
    }
    const known = new Set(this.store.getValue<string[]>("known_conversations") ?? []);
    known.add(conversation_id);
    this.store.putValue("known_conversations", [...known]);
    return { conversation_id };
  }

  private replyTarget(messageId: string): ReplyTarget | null {
    let target = this.replyTargets.get(messageId);
    if (target === undefined) {
      target = this.store.getValue<ReplyTarget>(`reply:${messageId}`);
      this.replyTargets.set(messageId, target);
    }
    return target;
  }

  override async alarm(): Promise<void> {
    this.writeWaiting();
    // Whatever is still pending gets a new alarm below.
    this.alarms.fired();
    const now = Date.now();
    for (const key of this.store.dueDeadlines(now)) {
      this.store.clearDeadline(key);
      this.apply({ type: "deadline", key });
    }
    const due = this.store.pendingOutbox().filter((row) => row.next_at <= now && !this.inflight.has(row.id));
    for (const row of due)
      log("info", "re-driving effect", {
        conversation_id: this.state?.conversation_id,
        effect: row.effect.type,
        attempts: row.attempts,
      });
    this.performAll(due);
    await this.scheduleAlarm();
  }

  private async scheduleAlarm(): Promise<void> {
    const now = Date.now();
    const times: number[] = [];
    const deadline = this.store.nextDeadline();
    if (deadline !== null) times.push(deadline);
    for (const row of this.store.pendingTimes()) {
      times.push(this.inflight.has(row.id) ? now + WATCHDOG_MS : Math.max(row.next_at, now));
    }
    if (times.length === 0) return;
    await this.alarms.atMost(Math.min(...times));
  }

  private resolveWaiters(reply: FinishedReply): void {
    const waiters = this.waiters.get(reply.message_id);
    if (!waiters) return;
    this.waiters.delete(reply.message_id);
    for (const w of waiters) w(reply);
  }

  private replyView(messageId: string, reply: FinishedReply | null): WaitReply {
    const s = this.state!;
    if (reply) {
      return {
        conversation_id: s.conversation_id,
        message_id: messageId,
        status: reply.status,
        reply: reply.reply,
        tool_calls: reply.tool_calls,
        iterations: reply.iterations,
        stop_reason: reply.stop_reason,
      };
    }
    const running = s.run?.message_id === messageId ? s.run : null;
    return {
      conversation_id: s.conversation_id,
      message_id: messageId,
      status: "running",
      reply: null,
      tool_calls: running?.tool_calls ?? [],
      iterations: running?.iteration ?? 0,
      stop_reason: null,
    };
  }

  /** Index and metrics go to the shard this conversation hashes to, through the outbox. */
  private indexConversation(
    toPerform: { id: number; effect: OutboundEffect }[],
    messageId: string,
    status: string,
    text: string | null,
    now: number,
    run: RunRecord | null,
  ): void {
    if (!this.env.METRICS_SHARD) return;
    this.enqueue(
      toPerform,
      { type: "record_metrics", message_id: `${messageId}:${status}`, run, status, text, at: now },
      now,
    );
  }

  /** Record an outbound effect in the outbox (inside apply's transaction); a new one is performed after commit. */
  private enqueue(toPerform: { id: number; effect: OutboundEffect }[], effect: OutboundEffect, now: number): void {
    const id = this.store.addOutbox(outboxKey(effect), effect, now);
    if (id !== null) toPerform.push({ id, effect });
  }

  // ---- Server-Sent Events ----------------------------------------------------------------

  private readonly sseClients = new Set<WritableStreamDefaultWriter<Uint8Array>>();

  /**
   * `GET …/events`: every stored event after `Last-Event-ID` (or `?after=`), then live ones as
   * they happen, each with its sequence number as the SSE id, so a reconnect resumes without gaps
   * or repeats.
   */
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    this.writeWaiting();
    if (!url.pathname.endsWith("/events")) return new Response("not found", { status: 404 });
    if (!this.state)
      return new Response(JSON.stringify({ type: "about:blank", title: "Not found", status: 404 }), {
        status: 404,
        headers: { "content-type": "application/problem+json" },
      });
    const after = Number(request.headers.get("last-event-id") ?? url.searchParams.get("after") ?? "0");
    const from = Number.isFinite(after) && after >= 0 ? Math.floor(after) : 0;
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const encoder = new TextEncoder();
    let last = from;
    for (;;) {
      const batch = this.store.events(last, 500);
      for (const e of batch) void writer.write(encoder.encode(sseFrame(e)));
      if (batch.length < 500) break;
      last = batch[batch.length - 1]!.seq;
    }
    this.sseClients.add(writer);
    const keepAlive = setInterval(() => {
      writer.write(encoder.encode(": keep-alive\n\n")).catch(() => undefined);
    }, 15_000);
    void writer.closed
      .catch(() => undefined)
      .finally(() => {
        clearInterval(keepAlive);
        this.sseClients.delete(writer);
      });
    request.signal?.addEventListener("abort", () => {
      clearInterval(keepAlive);
      this.sseClients.delete(writer);
      writer.close().catch(() => undefined);
    });
    return new Response(readable, {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" },
    });
  }

  private broadcast(events: ConversationEvent[]): void {
    if (this.sseClients.size === 0 || events.length === 0) return;
    const bytes = new TextEncoder().encode(events.map(sseFrame).join(""));
    for (const writer of this.sseClients) {
      writer.write(bytes).catch(() => this.sseClients.delete(writer));
    }
  }

  private hub() {
    const agentId = this.state!.agent_id;
    return this.env.DEVICE_HUB.get(this.env.DEVICE_HUB.idFromName(agentId));
  }
}

function sseFrame(e: ConversationEvent): string {
  return `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
}

/** What the parent's `task` call gets: the child's final reply, or why there is none. */
function subtaskOutcome(reply: FinishedReply): ToolOutcome {
  if (reply.status === "completed")
    return { status: "success", tool: "task", result: reply.reply ?? "", stderr: "", exit_code: 0, elapsed_ms: 0 };
  return {
    status: "error",
    tool: "task",
    error: `the sub-task ended ${reply.status}: ${reply.reply ?? reply.stop_reason}`,
    error_type: reply.status === "cancelled" ? "cancelled" : "execution_failed",
  };
}

/** Outbound deliveries are signed with REPLY_SIGNING_SECRET, or else the first inbound webhook secret. */
function replySigningSecret(env: Env): string | null {
  if (env.REPLY_SIGNING_SECRET) return env.REPLY_SIGNING_SECRET;
  const cfg = readConfig(env);
  return cfg.ok ? (cfg.config.WEBHOOK_SECRETS[0]?.secret ?? null) : null;
}
