import type { DurableObject } from "cloudflare:workers";
import type { ApiKeysDO } from "./api-keys/api-keys-do.js";
import type { ApprovalRulesDO } from "./approval-rules/approval-rules-do.js";
import type { DurableObjectBindings } from "./bindings.js";
import type { ChannelDirectoryDO } from "./channels/directory/channel-directory-do.js";
import type { ChatThreadRpc } from "./channels/thread/chat-thread-rpc.js";
import type { ConversationRpc } from "./conversation/conversation-rpc.js";
import type { DeviceHubRpc } from "./device-hub/device-hub-rpc.js";
import type { CountersDO } from "./front-door/counters-do.js";
import type { IdempotencyDO } from "./front-door/idempotency-do.js";
import type { LimiterDO } from "./front-door/limiter-do.js";
import type { McpSessionDO } from "./mcp-session/mcp-session-do.js";
import { shardFor } from "./metrics/aggregate.js";
import type { MetricsShardDO } from "./metrics/metrics-shard-do.js";
import type { PairingRpc } from "./pairing/pairing-rpc.js";
import type { RegistryRpc } from "./registry/registry-rpc.js";
import type { SchedulerRpc } from "./scheduler/scheduler-rpc.js";

/**
 * Where each Durable Object lives: the one place that turns a name into a stub, so every caller
 * (routes, conversations, hubs, built-ins) names objects the same way and gets the same types.
 */
type Bindings<K extends keyof DurableObjectBindings> = Pick<DurableObjectBindings, K>;

/**
 * A stub offering the methods `T` declares, with the types it declares. RPC passes arguments and
 * results by structured clone, and every method here takes and returns plain data; the Workers
 * types cannot see that through the `unknown` in JSON-shaped fields (tool arguments, schemas) and
 * would type such results as `never`, so the stub is typed once, here, from the object's own
 * declaration. The conversation and the hub are declared by RPC interfaces (their classes
 * implement them, and import this file); the others by their classes.
 */
export type StubOf<T> = DurableObjectStub & Omit<T, keyof DurableObject>;

const stub = <T>(ns: DurableObjectNamespace, name: string) => ns.get(ns.idFromName(name)) as unknown as StubOf<T>;

/** One hub per device. */
export const hubFor = (env: Bindings<"DEVICE_HUB">, agentId: string) => stub<DeviceHubRpc>(env.DEVICE_HUB, agentId);

/** One object per conversation. */
export const conversationFor = (env: Bindings<"CONVERSATION">, conversationId: string) =>
  stub<ConversationRpc>(env.CONVERSATION, conversationId);

/** The one device registry. */
export const registryOf = (env: Bindings<"REGISTRY">) => stub<RegistryRpc>(env.REGISTRY, "global");

/** One registry per pool: its members' state and its conversations' devices, for routing. */
export const poolRegistryFor = (env: Bindings<"REGISTRY">, pool: string) =>
  stub<RegistryRpc>(env.REGISTRY, `pool:${pool}`);

/** One rate limiter per sender and per agent. */
export const limiterFor = (env: Bindings<"LIMITER">, subject: `sender:${string}` | `agent:${string}`) =>
  stub<LimiterDO>(env.LIMITER, subject);

/** One object per (sender, idempotency key). */
export const idempotencyFor = (env: Bindings<"IDEMPOTENCY">, sender: string, key: string) =>
  stub<IdempotencyDO>(env.IDEMPOTENCY, `${sender}\n${key}`);

/** The front door's refusal counters. */
export const rejectionCounters = (env: Bindings<"COUNTERS">) => stub<CountersDO>(env.COUNTERS, "rejections");

type MetricsBindings = Bindings<"METRICS_SHARD" | "METRICS_SHARDS">;

/** How many metrics shards there are: METRICS_SHARDS, 1 to 64, default 8. */
export function metricsShardCount(env: MetricsBindings): number {
  const n = Number(env.METRICS_SHARDS ?? "8");
  return Number.isInteger(n) && n >= 1 && n <= 64 ? n : 8;
}

const shardStub = (ns: DurableObjectNamespace, index: number) => stub<MetricsShardDO>(ns, `shard-${index}`);

/** The shard a conversation's index row and run metrics go to; null without the binding. */
export function metricsShardFor(env: MetricsBindings, conversationId: string) {
  const ns = env.METRICS_SHARD;
  return ns ? shardStub(ns, shardFor(conversationId, metricsShardCount(env))) : null;
}

/** Every metrics shard, for reads that merge them; none without the binding. */
export function allMetricsShards(env: MetricsBindings) {
  const ns = env.METRICS_SHARD;
  return ns ? Array.from({ length: metricsShardCount(env) }, (_, i) => shardStub(ns, i)) : [];
}

/** The deployment's approval rules. */
export const approvalRulesOf = (env: Bindings<"APPROVAL_RULES">) => stub<ApprovalRulesDO>(env.APPROVAL_RULES, "global");

/** The deployment's schedules. */
export const schedulerOf = (env: Bindings<"SCHEDULER">) => stub<SchedulerRpc>(env.SCHEDULER, "global");

/** One object per session of the fleet's MCP server. */
export const mcpSessionFor = (env: Bindings<"MCP_SESSION">, sessionId: string) =>
  stub<McpSessionDO>(env.MCP_SESSION, sessionId);

/** The deployment's scoped API keys. */
export const apiKeysOf = (env: Bindings<"API_KEYS">) => stub<ApiKeysDO>(env.API_KEYS, "global");

/** One object per chat thread, named `<platform>:<chat id>[:<thread id>]`. */
export const chatThreadFor = (env: Bindings<"CHAT_THREAD">, threadKey: string) =>
  stub<ChatThreadRpc>(env.CHAT_THREAD, threadKey);

/** The deployment's chat grants and pairing codes. */
export const channelDirectoryOf = (env: Bindings<"CHANNEL_DIRECTORY">) =>
  stub<ChannelDirectoryDO>(env.CHANNEL_DIRECTORY, "global");

/** The deployment's pairing requests (control plane only: never on a message's path). */
export const pairingOf = (env: Bindings<"PAIRING">) => stub<PairingRpc>(env.PAIRING, "global");
