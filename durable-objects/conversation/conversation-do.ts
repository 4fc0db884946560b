import { DurableObject } from "cloudflare:workers";
import {
  type ContentBlock,
  type ConversationEvent,
  type ConversationEventData,
  toOpenAITool,
  type ToolOutcome,
  toolSpecsFromSkills,
  type WaitReply,
} from "../../protocol/index.js";
import { readConfig } from "../../worker/config.js";
import type { Env } from "../../worker/env.js";
import { log } from "../../worker/log.js";
import { ConversationStore, type OutboundEffect, outboxKey } from "./conversation-store.js";
import { advance, type FinishedReply, initialState, type LoopConfig, type LoopEvent, type LoopState } from "./core/index.js";
import { callLlm } from "./llm/index.js";

export type PostMessageInput = {
  conversation_id: string;
  agent_id: string;
  message_id: string;
  text: string;
  loop: Partial<LoopConfig>;
};

export type ConversationView = {
  conversation_id: string;
  agent_id: string;
  status: LoopState["status"];
  messages: LoopState["messages"];
  replies: FinishedReply[];
  pending_tool_calls: { id: string; name: string; state: string }[];
  queued_messages: number;
};

/** While an outbound effect runs, look again this often: a restart loses in-memory work. */
const WATCHDOG_MS = 30_000;
const RETRY_BASE_MS = 1_000;

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

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new ConversationStore(ctx.storage.sql);
    void ctx.blockConcurrencyWhile(async () => {
      this.state = this.store.loadState();
      // Work that was started before a restart is picked up by the alarm, not here, so the
      // constructor stays fast and the re-drive runs with the object fully set up.
      if (this.store.pendingOutbox().length > 0) await ctx.storage.setAlarm(Date.now());
    });
  }

  // ---- RPC from the worker ---------------------------------------------------------------

  async postMessage(input: PostMessageInput): Promise<{ ok: true } | { ok: false; error: string }> {
    if (this.state && this.state.agent_id !== input.agent_id) {
      return { ok: false, error: `conversation '${input.conversation_id}' belongs to agent '${this.state.agent_id}'` };
    }
    const hub = this.env.DEVICE_HUB.get(this.env.DEVICE_HUB.idFromName(input.agent_id));
    const skills = await hub.getSkills(input.agent_id);
    if (!this.state) this.state = initialState(input.conversation_id, input.agent_id, input.loop);
    this.apply({ type: "user_message", message_id: input.message_id, text: input.text, tools: toolSpecsFromSkills(skills) });
    return { ok: true };
  }

  /** Resolves with the reply to `messageId`, or with the state so far after `timeoutMs`. */
  async waitForReply(messageId: string, timeoutMs: number): Promise<WaitReply> {
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
    const s = this.state;
    if (!s) return null;
    return {
      conversation_id: s.conversation_id,
      agent_id: s.agent_id,
      status: s.status,
      messages: s.messages,
      replies: s.replies,
      pending_tool_calls: (s.run?.round ?? []).filter((c) => c.state !== "done").map((c) => ({ id: c.id, name: c.name, state: c.state })),
      queued_messages: s.queue.length,
    };
  }

  async getEvents(afterSeq = 0, limit = 1000): Promise<ConversationEvent[]> {
    return this.store.events(afterSeq, limit);
  }

  async cancel(reason?: string): Promise<{ found: boolean; cancelled: boolean }> {
    if (!this.state) return { found: false, cancelled: false };
    const running = this.state.run !== null;
    this.apply({ type: "cancel", ...(reason ? { reason } : {}) });
    return { found: true, cancelled: running };
  }

  // ---- RPC from the device hub -----------------------------------------------------------

  async deliverToolResult(toolCallId: string, requestId: string, outcome: ToolOutcome): Promise<void> {
    if (!this.state) return;
    this.apply({ type: "tool_result", tool_call_id: toolCallId, request_id: requestId, outcome });
  }

  async deliverProgress(toolCallId: string, _requestId: string, content: ContentBlock[]): Promise<void> {
    if (!this.state) return;
    this.apply({ type: "tool_progress", tool_call_id: toolCallId, partial: content });
  }

  // ---- the shell -------------------------------------------------------------------------

  private apply(event: LoopEvent, finishedOutbox?: number): void {
    const prev = this.state;
    if (!prev) return;
    const now = Date.now();
    const { state, effects } = advance(prev, event, now);
    const toPerform: { id: number; effect: OutboundEffect }[] = [];
    const emitted: ConversationEvent[] = [];
    const replies: FinishedReply[] = [];
    this.ctx.storage.transactionSync(() => {
      this.store.saveState(state);
      if (finishedOutbox !== undefined) this.store.finishOutbox(finishedOutbox);
      for (const effect of effects) {
        switch (effect.type) {
          case "emit_event":
            emitted.push(this.store.appendEvent(effect.event, now));
            break;
          case "set_deadline":
            this.store.setDeadline(effect.key, effect.at);
            break;
          case "clear_deadline":
            this.store.clearDeadline(effect.key);
            break;
          case "reply":
            replies.push(effect.reply);
            break;
          default: {
            const id = this.store.addOutbox(outboxKey(effect), effect, now);
            if (id !== null) toPerform.push({ id, effect });
          }
        }
      }
    });
    this.state = state;
    for (const reply of replies) this.resolveWaiters(reply);
    for (const { id, effect } of toPerform) this.perform(id, effect);
    void this.scheduleAlarm();
    void emitted;
  }

  private perform(id: number, effect: OutboundEffect): void {
    if (this.inflight.has(id)) return;
    this.inflight.add(id);
    const run = async () => {
      try {
        switch (effect.type) {
          case "call_llm":
            return await this.performLlmCall(id, effect.call_id, effect.with_tools);
          case "dispatch_tool": {
            const hub = this.hub();
            await hub.dispatch({
              request_id: effect.request_id,
              conversation_id: this.state!.conversation_id,
              tool_call_id: effect.tool_call_id,
              tool: effect.tool,
              parameters: effect.parameters,
              timeout_ms: effect.timeout_ms,
            });
            this.store.finishOutbox(id);
            return;
          }
          case "cancel_tool":
            await this.hub().cancel(effect.request_id);
            this.store.finishOutbox(id);
            return;
        }
      } catch (e) {
        const row = this.store.pendingOutbox().find((r) => r.id === id);
        const attempts = (row?.attempts ?? 0) + 1;
        const delay = Math.min(RETRY_BASE_MS * 2 ** attempts, 60_000);
        this.store.retryOutboxLater(id, Date.now() + delay);
        log("warn", "effect failed, will retry", { conversation_id: this.state?.conversation_id, effect: effect.type, attempts, error: String(e) });
        await this.scheduleAlarm();
      } finally {
        this.inflight.delete(id);
      }
    };
    this.ctx.waitUntil(run());
  }

  private async performLlmCall(outboxId: number, callId: string, withTools: boolean): Promise<void> {
    const state = this.state!;
    const cfg = readConfig(this.env);
    if (!cfg.ok || !cfg.config.OPENAI_BASE_URL) {
      const error = cfg.ok ? "OPENAI_BASE_URL is not set" : `configuration: ${cfg.error}`;
      this.apply({ type: "llm_failed", call_id: callId, error }, outboxId);
      return;
    }
    const c = cfg.config;
    const result = await callLlm(
      { baseURL: c.OPENAI_BASE_URL!, apiKey: c.OPENAI_API_KEY ?? "not-needed", model: c.LLM_MODEL, maxRetries: c.LLM_MAX_RETRIES, timeoutMs: c.LLM_TIMEOUT_MS },
      { messages: state.messages, tools: withTools ? state.tools.map(toOpenAITool) : [] },
      {
        idSeed: callId.replace(/[^A-Za-z0-9]/g, "").slice(-24),
        onDelta: (delta: string) => this.emitLive({ type: "message_delta", delta }),
      },
    );
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

  /** Deltas are stored as events but are not loop state. */
  private emitLive(event: ConversationEventData): void {
    this.store.appendEvent(event, Date.now());
  }

  override async alarm(): Promise<void> {
    const now = Date.now();
    for (const key of this.store.dueDeadlines(now)) {
      this.store.clearDeadline(key);
      this.apply({ type: "deadline", key });
    }
    for (const row of this.store.pendingOutbox()) {
      if (row.next_at <= now && !this.inflight.has(row.id)) {
        log("info", "re-driving effect", { conversation_id: this.state?.conversation_id, effect: row.effect.type, attempts: row.attempts });
        this.perform(row.id, row.effect);
      }
    }
    await this.scheduleAlarm();
  }

  private async scheduleAlarm(): Promise<void> {
    const now = Date.now();
    const times: number[] = [];
    const deadline = this.store.nextDeadline();
    if (deadline !== null) times.push(deadline);
    for (const row of this.store.pendingOutbox()) {
      times.push(this.inflight.has(row.id) ? now + WATCHDOG_MS : Math.max(row.next_at, now));
    }
    if (times.length === 0) return;
    const next = Math.min(...times);
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > next || current < now) await this.ctx.storage.setAlarm(next);
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

  private hub() {
    const agentId = this.state!.agent_id;
    return this.env.DEVICE_HUB.get(this.env.DEVICE_HUB.idFromName(agentId));
  }
}
