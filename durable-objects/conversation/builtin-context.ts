import { mayReach, type Owner } from "../../runtime/access.js";
import { conversationFor, hubFor } from "../addresses.js";
import type { DurableObjectBindings } from "../bindings.js";
import type { BuiltinContext, DeviceSummary } from "./builtins/types.js";
import type { ConversationStore } from "./conversation-store.js";
import { rememberConversation } from "./subtasks.js";

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
  startSubtask: (text: string, agentId: string) => Promise<{ conversation_id: string }>;
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
        const v = await conversationFor(env, id).getConversation();
        return v
          ? {
              conversation_id: v.conversation_id,
              agent_id: v.agent_id,
              status: v.status,
              messages: v.messages.map((m) => ({ role: m.role, content: m.content ?? null })),
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
    async startSubtask(text: string, agentId: string) {
      if (!mayReach(opts.owner.reach, agentId)) return { error: outOfReach(agentId) };
      return opts.startSubtask(text, agentId);
    },
  };
}

const outOfReach = (agentId: string) =>
  `device "${agentId}" is not one this conversation's owner may use; use this conversation's device`;
