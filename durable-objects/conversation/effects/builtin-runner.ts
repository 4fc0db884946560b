import type { ToolOutcome } from "@edgeloop/protocol";
import { mayReach, type Owner } from "../../../runtime/access.js";
import { log } from "../../../runtime/log.js";
import { poolsOf } from "../../../runtime/pools.js";
import { conversationFor, hubFor } from "../../addresses.js";
import type { DurableObjectBindings } from "../../bindings.js";
import { findBuiltin } from "../builtins/index.js";
import { type BuiltinContext, type DeviceSummary, SUMMARY_MESSAGES } from "../builtins/types.js";
import { runWebhookTool } from "../builtins/webhook-tools.js";
import type { LoopState } from "../core/index.js";
import type { RemoteMcpTools } from "../mcp/remote-mcp-tools.js";
import type { ConversationSettings } from "../settings/conversation-settings.js";
import type { ConversationStore } from "../storage/conversation-store.js";
import type { OutboundEffect } from "../storage/outbound-effects.js";

type RunBuiltinEffect = Extract<OutboundEffect, { type: "run_builtin" }>;

/**
 * Runs a built-in, a webhook tool or a remote MCP server's tool inside the conversation. The outcome is the call's result, or
 * null when it arrives later (a sub-task's reply). A thrown error is an internal error: logged with
 * its detail under an incident id, while the model only learns that the tool failed, so nothing of
 * the orchestrator's internals leaks into the conversation.
 */
export async function runBuiltin(
  effect: RunBuiltinEffect,
  deps: {
    env: Pick<DurableObjectBindings, "CONVERSATION" | "DEVICE_HUB">;
    store: ConversationStore;
    state: LoopState;
    /** the conversation's owner as its object holds it (read once, not per call) */
    owner: Owner | null;
    settings: ConversationSettings;
    remoteMcp: RemoteMcpTools;
    /** the call's trace context, passed to a remote MCP server */
    traceparent?: string | undefined;
  },
): Promise<ToolOutcome | null> {
  const { env, store, state, settings } = deps;
  try {
    const builtin = findBuiltin(effect.tool);
    if (builtin) {
      // Recorded with the conversation's first message, so every effect has one.
      const owner = deps.owner;
      if (!owner) throw new Error("the conversation has no owner recorded");
      const ctx = builtinContext({
        env,
        store,
        owner,
        conversation_id: state.conversation_id,
        agent_id: state.agent_id,
        tool_call_id: effect.tool_call_id,
        request_id: effect.request_id,
        pools: poolsOf(env as { POOLS?: string }),
        startSubtask: (text, agentId, fleet) => startSubtask(env, store, state, effect, text, owner, agentId, fleet),
      });
      const result = await builtin.run(effect.parameters, ctx);
      return result.kind === "done" ? result.outcome : null;
    }
    const remote = deps.remoteMcp.find(effect.tool);
    if (remote) {
      const { mcpServers, outbound } = settings;
      const { parameters, tool_call_id } = effect;
      return await deps.remoteMcp.run(remote, mcpServers, parameters, outbound, deps.traceparent, tool_call_id);
    }
    const tool = settings.webhookTools.find((t) => t.name === effect.tool);
    if (!tool) {
      return {
        status: "error",
        tool: effect.tool,
        error: `Tool '${effect.tool}' is not available in the orchestrator`,
        error_type: "not_found",
      };
    }
    return await runWebhookTool(tool, effect.parameters, {
      request_id: effect.request_id,
      tool_call_id: effect.tool_call_id,
      conversation_id: state.conversation_id,
      outbound: settings.outbound,
      now: () => Date.now(),
    });
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
    return {
      status: "error",
      tool: effect.tool,
      error: `internal error (incident ${incident})`,
      error_type: "execution_failed",
    };
  }
}

/** What built-ins may reach from inside a conversation: its storage, the devices, other conversations. */
export function builtinContext(opts: {
  env: Pick<DurableObjectBindings, "CONVERSATION" | "DEVICE_HUB">;
  store: ConversationStore;
  conversation_id: string;
  agent_id: string;
  tool_call_id: string;
  request_id: string;
  /** who started the conversation: what it starts is theirs, and only on devices they may use */
  owner: Owner;
  /** the deployment's POOLS, for a sub-task handed to a pool */
  pools?: ReadonlyMap<string, readonly string[]>;
  /** `fleet`: the pool's devices, `agentId` first */
  startSubtask: (text: string, agentId: string, fleet?: string[]) => Promise<{ conversation_id: string }>;
}): BuiltinContext {
  const { env, store } = opts;
  return {
    conversation_id: opts.conversation_id,
    agent_id: opts.agent_id,
    tool_call_id: opts.tool_call_id,
    request_id: opts.request_id,
    now: () => Date.now(),
    kv: {
      get: <T>(key: string) => store.getValue<T>(`builtin:${key}`),
      put: (key, value) => store.putValue(`builtin:${key}`, value),
    },
    devices: {
      async list(): Promise<DeviceSummary[]> {
        // The devices this deployment has seen; without a registry binding, this conversation's own.
        const ids = [opts.agent_id, ...(store.getValue<string[]>("known_agents") ?? [])];
        const out: DeviceSummary[] = [];
        for (const id of [...new Set(ids)]) {
          const d = await hubFor(env, id).getDevice(id);
          out.push({
            agent_id: id,
            online: d.online,
            last_seen: d.last_seen,
            version: d.version,
            tools: d.skills.flatMap((s) => s.tools.map((t) => t.name)),
          });
        }
        return out;
      },
      async get(agentId: string) {
        return await hubFor(env, agentId).getDevice(agentId);
      },
    },
    conversations: {
      known: () => store.getValue<string[]>("known_conversations") ?? [],
      remember: (id: string) => rememberConversation(store, id),
      async view(id: string) {
        const v = await conversationFor(env, id).getConversation({ limit: SUMMARY_MESSAGES });
        return v
          ? {
              conversation_id: v.conversation_id,
              agent_id: v.agent_id,
              status: v.status,
              messages: v.messages.map((m) => ({ role: m.role, content: m.content ?? null })),
              message_count: v.messages_total,
            }
          : null;
      },
      async post(id: string | null, agentId: string, text: string) {
        if (!mayReach(opts.owner.reach, agentId)) return { error: outOfReach(agentId) };
        const conversation_id = id ?? `conv_${crypto.randomUUID()}`;
        const message_id = `msg_${crypto.randomUUID()}`;
        const res = await conversationFor(env, conversation_id).postMessage({
          conversation_id,
          by: opts.owner,
          agent_id: agentId,
          message_id,
          text,
        });
        return res.ok ? { conversation_id, message_id } : { error: res.error };
      },
    },
    async startSubtask(text: string, agentId: string, pool?: string) {
      if (pool === undefined) {
        if (!mayReach(opts.owner.reach, agentId)) return { error: outOfReach(agentId) };
        return opts.startSubtask(text, agentId);
      }
      // A pool's sub-task is a fleet over its devices: every one must be the owner's to use.
      const members = opts.pools?.get(pool);
      if (!members?.length) return { error: `no pool "${pool}" (POOLS)` };
      const outside = members.find((id) => !mayReach(opts.owner.reach, id));
      if (outside !== undefined) return { error: outOfReach(outside) };
      return opts.startSubtask(text, members[0]!, [...members]);
    },
  };
}

const outOfReach = (agentId: string) =>
  `device "${agentId}" is not one this conversation's owner may use; use this conversation's device`;

/**
 * `task`: a child conversation with its own loop, started by a built-in call of its parent. The
 * child's final reply comes back to the parent's call through a `notify_parent` effect.
 */
async function startSubtask(
  env: Pick<DurableObjectBindings, "CONVERSATION">,
  store: ConversationStore,
  parent: LoopState,
  call: { tool_call_id: string; request_id: string },
  text: string,
  /** the parent's owner: the child is theirs too */
  owner: Owner,
  agentId: string,
  fleet?: string[],
): Promise<{ conversation_id: string }> {
  // Derived from the request id, so a re-driven call finds the same child instead of a second one.
  const conversation_id = `task_${call.request_id.replace(/[^A-Za-z0-9]/g, "").slice(-40)}`;
  const child = conversationFor(env, conversation_id);
  const existing = await child.getConversation();
  if (!existing) {
    const res = await child.postMessage({
      conversation_id,
      by: owner,
      agent_id: agentId,
      message_id: `msg_${crypto.randomUUID()}`,
      text,
      loop: { max_iterations: parent.config.max_iterations, tool_error_limit: parent.config.tool_error_limit },
      parent: { conversation_id: parent.conversation_id, tool_call_id: call.tool_call_id, request_id: call.request_id },
      ...(fleet ? { fleet } : {}),
    });
    if (!res.ok) throw new Error(`sub-task not started: ${res.error}`);
  }
  rememberConversation(store, conversation_id);
  return { conversation_id };
}

/** Conversations this one started or named, for the sessions built-ins. */
function rememberConversation(store: ConversationStore, conversationId: string): void {
  const known = new Set(store.getValue<string[]>("known_conversations") ?? []);
  known.add(conversationId);
  store.putValue("known_conversations", [...known]);
}
