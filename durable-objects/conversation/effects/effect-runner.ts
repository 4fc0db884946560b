import type { ImageFit } from "@edgeloop/protocol";
import type { Owner } from "../../../runtime/access.js";
import { log } from "../../../runtime/log.js";
import { conversationFor, hubFor, metricsShardFor } from "../../addresses.js";
import type { DurableObjectBindings } from "../../bindings.js";
import type { DispatchCommand } from "../../device-hub/device-hub-rpc.js";
import type { LoopEvent, LoopState } from "../core/index.js";
import type { RemoteMcpTools } from "../mcp/remote-mcp-tools.js";
import type { ConversationSettings } from "../settings/conversation-settings.js";
import { deviceImageFit, type ImageVars } from "../settings/image-settings.js";
import type { ConversationStore } from "../storage/conversation-store.js";
import type { OutboundEffect } from "../storage/outbound-effects.js";
import type { PendingEffect } from "../storage/step-recorder.js";
import { withSpan } from "../tracing/runtime-spans.js";
import { runBuiltin } from "./builtin-runner.js";
import { ChatPushes } from "./chat-delivery.js";
import { deviceOfCall, deviceOfTool, routeDispatches } from "./fleet-dispatch.js";
import { type ModelCalls, summarize } from "./model-calls.js";
import { deliverSigned, REPLY_EXPIRY_MS, replyBackoffMs } from "./reply-delivery.js";

type DispatchEffect = Extract<OutboundEffect, { type: "dispatch_tool" }>;
type OtherEffect = Exclude<OutboundEffect, DispatchEffect>;

const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 60_000;

/** What the runner needs of the conversation it works for: the Durable Object builds it once. */
export interface EffectHost {
  readonly env: DurableObjectBindings & ImageVars;
  readonly store: ConversationStore;
  readonly modelCalls: ModelCalls;
  readonly remoteMcp: RemoteMcpTools;
  /** keep the object alive until `work` settles */
  waitUntil(work: Promise<unknown>): void;
  /** the deployment's settings (valid: a conversation exists only once a message was accepted) */
  settings(): ConversationSettings;
  /** the state now (an effect only exists once the conversation does) */
  state(): LoopState;
  /** who started the conversation, as the object holds it in memory */
  owner(): Owner | null;
  /** feed an outcome back into the loop; the outbox row is finished in the same commit */
  apply(event: LoopEvent, finishedOutbox: number): void;
  /** bring the alarm forward to the next pending row, deadline or watchdog */
  scheduleAlarm(): Promise<void>;
  /** the W3C trace context a tool call carries (tracing/run-spans.ts) */
  traceparent(toolCallId: string): string | undefined;
}

/**
 * Performs the outbox rows of committed steps: the model call, tool dispatches to the device's
 * hub, built-ins, cancels, a run's output to its reply target, metrics and a sub-task's reply to its parent. A
 * failure is retried with backoff. See docs/architecture.md#outbox-re-drive.
 */
export class EffectRunner {
  /** rows being performed by this instance (lost on restart, which is the point) */
  private readonly inflight = new Set<number>();

  private readonly env: DurableObjectBindings & ImageVars;
  private readonly store: ConversationStore;
  private readonly modelCalls: ModelCalls;
  private readonly chat: ChatPushes;

  constructor(private readonly host: EffectHost) {
    this.env = host.env;
    this.store = host.store;
    this.modelCalls = host.modelCalls;
    this.chat = new ChatPushes(host.env, host.store);
  }

  isInflight(id: number): boolean {
    return this.inflight.has(id);
  }

  /** Start these rows; the tool dispatches among them (a model's parallel calls) go to the hub in one call. */
  performAll(items: PendingEffect[]): void {
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
    const state = this.host.state();
    const run = async () => {
      try {
        const fit = deviceImageFit(this.env);
        // A fleet's calls may go to several hubs: one batch each (effects/fleet-dispatch.ts).
        const targets = await routeDispatches(
          this.env,
          this.store,
          state,
          items.map((i) => i.effect),
        );
        const byHub = new Map<string, DispatchCommand[]>();
        for (const [i, { id, effect }] of items.entries()) {
          const target = targets[i]!;
          if (!target.ok) {
            const { tool_call_id, request_id } = effect;
            this.host.apply({ type: "tool_result", tool_call_id, request_id, outcome: target.outcome }, id);
            continue;
          }
          const cmd = dispatchCommand(
            state,
            { ...effect, tool: target.tool },
            this.host.traceparent(effect.tool_call_id),
            fit,
          );
          byHub.set(target.agent_id, [...(byHub.get(target.agent_id) ?? []), cmd]);
        }
        await Promise.all([...byHub].map(([agentId, cmds]) => hubFor(this.env, agentId).dispatchBatch(cmds)));
        for (const [i, { id }] of items.entries()) if (targets[i]!.ok) this.store.finishOutboxLater(id);
      } catch (e) {
        for (const { id, effect } of items) this.retryLater(id, effect, e);
      } finally {
        for (const { id } of items) this.inflight.delete(id);
        await this.host.scheduleAlarm();
      }
    };
    this.host.waitUntil(run());
  }

  private perform(id: number, effect: OtherEffect): void {
    if (this.inflight.has(id)) return;
    this.inflight.add(id);
    const run = async () => {
      try {
        await this.performOne(id, effect);
      } catch (e) {
        this.retryLater(id, effect, e);
      } finally {
        this.inflight.delete(id);
        // Rescheduled only now: while in flight, a row only gets the watchdog time.
        await this.host.scheduleAlarm();
      }
    };
    this.host.waitUntil(run());
  }

  private async performOne(id: number, effect: OtherEffect): Promise<void> {
    const state = this.host.state();
    switch (effect.type) {
      case "call_llm":
        return this.performModelCall(id, effect.call_id, effect.with_tools);
      case "cancel_tool":
        await hubFor(this.env, deviceOfCall(this.store, state, effect.request_id)).cancel(effect.request_id);
        this.store.finishOutbox(id);
        return;
      case "run_builtin": {
        const deps = {
          env: this.env,
          store: this.store,
          state,
          owner: this.host.owner(),
          settings: this.host.settings(),
          remoteMcp: this.host.remoteMcp,
          traceparent: this.host.traceparent(effect.tool_call_id),
        };
        const outcome = await runBuiltin(effect, deps);
        if (!outcome) return this.store.finishOutbox(id);
        const { tool_call_id, request_id } = effect;
        return this.host.apply({ type: "tool_result", tool_call_id, request_id, outcome }, id);
      }
      case "deliver_reply":
        return this.deliverReply(id, effect);
      case "deliver_chat":
        await this.chat.push(state.conversation_id, effect);
        this.store.finishOutbox(id);
        return;
      case "compact": {
        const event = await summarize(state, this.store, this.modelCalls, effect);
        // Cancelled meanwhile, or already applied (a re-driven row): nothing waits for it.
        if (this.host.state().run?.compacting?.call_id !== effect.call_id) return this.store.finishOutbox(id);
        return this.host.apply(event, id);
      }
      case "record_denial": {
        const { type: _type, ...denial } = effect;
        const device = deviceOfTool(state, effect.tool);
        await hubFor(this.env, device.agent_id).recordDenial({
          ...denial,
          tool: device.tool,
          conversation_id: state.conversation_id,
        });
        this.store.finishOutbox(id);
        return;
      }
      case "record_metrics": {
        const shard = metricsShardFor(this.env, state.conversation_id);
        const row = {
          conversation_id: state.conversation_id,
          agent_id: state.agent_id,
          status: effect.status,
          created_at: effect.at,
          updated_at: effect.at,
          last_text: effect.text?.slice(0, 200) ?? null,
          owner: this.host.owner()?.id ?? null,
        };
        if (effect.run) await shard.recordEnd(row, effect.message_id, effect.run);
        else await shard.upsertConversation(row);
        // A run's start is followed by the run's next step, whose state write finishes it; its
        // end may be the conversation's last write (docs/architecture.md#outbox-re-drive).
        if (effect.status === "running") this.store.finishOutboxLater(id);
        else this.store.finishOutbox(id);
        return;
      }
      case "notify_parent": {
        const { conversation_id, tool_call_id, request_id } = effect.parent;
        await conversationFor(this.env, conversation_id).deliverToolResult(tool_call_id, request_id, effect.outcome);
        this.store.finishOutbox(id);
        return;
      }
    }
  }

  private async performModelCall(outboxId: number, callId: string, withTools: boolean): Promise<void> {
    const state = this.host.state();
    const call = this.modelCalls.take(callId, withTools, state);
    if (!call) {
      this.host.apply({ type: "llm_failed", call_id: callId, error: this.modelCalls.unavailableReason() }, outboxId);
      return;
    }
    const result = await call;
    if (this.host.state().run?.awaiting_llm !== callId) {
      this.store.finishOutbox(outboxId);
      return;
    }
    if (result.ok) {
      this.host.apply({ type: "llm_response", call_id: callId, turn: result.turn }, outboxId);
      return;
    }
    log("error", "llm call failed", { conversation_id: state.conversation_id, call_id: callId, error: result.error });
    this.host.apply({ type: "llm_failed", call_id: callId, error: result.error.message }, outboxId);
  }

  private async deliverReply(id: number, effect: Extract<OtherEffect, { type: "deliver_reply" }>): Promise<void> {
    const conversation_id = this.host.state().conversation_id;
    const { replySigningSecret, outbound } = this.host.settings();
    const key = `${conversation_id}:${effect.key}`;
    const sent = await withSpan(
      "deliver_reply",
      { "gen_ai.conversation.id": conversation_id, "edgeloop.reply.key": key },
      () => deliverSigned(effect.url, key, effect.payload, replySigningSecret, outbound),
    );
    if (sent.ok || !sent.retryable || Date.now() - effect.first_at > REPLY_EXPIRY_MS) {
      if (!sent.ok) log("warn", "reply delivery given up", { conversation_id, key: effect.key, error: sent.error });
      this.store.finishOutbox(id);
      return;
    }
    const attempts = this.store.attempts(id) + 1;
    this.store.retryOutboxLater(id, Date.now() + replyBackoffMs(attempts));
    log("info", "reply delivery failed, will retry", { conversation_id, key: effect.key, attempts, error: sent.error });
  }

  private retryLater(id: number, effect: OutboundEffect, e: unknown): void {
    const attempts = this.store.attempts(id) + 1;
    const delay = Math.min(RETRY_BASE_MS * 2 ** attempts, RETRY_MAX_MS);
    this.store.retryOutboxLater(id, Date.now() + delay);
    log("warn", "effect failed, will retry", {
      conversation_id: this.host.state().conversation_id,
      effect: effect.type,
      attempts,
      error: String(e),
    });
  }
}

function dispatchCommand(
  state: LoopState,
  effect: DispatchEffect,
  traceparent: string | undefined,
  imageLimits: ImageFit | null,
): DispatchCommand {
  return {
    request_id: effect.request_id,
    conversation_id: state.conversation_id,
    tool_call_id: effect.tool_call_id,
    tool: effect.tool,
    parameters: effect.parameters,
    timeout_ms: effect.timeout_ms,
    ...(effect.approval ? { approval: effect.approval } : {}),
    ...(traceparent ? { traceparent } : {}),
    ...(imageLimits ? { image_limits: imageLimits } : {}),
  };
}
