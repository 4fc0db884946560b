import type { DurableObject } from "cloudflare:workers";
import type { DurableObjectBindings } from "./bindings.js";
import type { ChatThreadRpc } from "./channels/thread/chat-thread-rpc.js";
import type { ConversationRpc } from "./conversation/conversation-rpc.js";
import type { DeploymentRpc } from "./deployment/deployment-rpc.js";
import type { DeviceHubRpc } from "./device-hub/device-hub-rpc.js";
import type { IdempotencyDO } from "./front-door/idempotency-do.js";
import type { LimiterDO } from "./front-door/limiter-do.js";
import type { McpSessionDO } from "./mcp-session/mcp-session-do.js";
import { shardFor } from "./metrics/aggregate.js";
import type { MetricsShardDO } from "./metrics/metrics-shard-do.js";
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
 * implement them, and import this file), as are the deployment object, the registry and the
 * scheduler; the others by their classes.
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

/** One rate limiter per sender, per agent, and per address registering OAuth apps (worker/oauth/registration-limit.ts). */
export const limiterFor = (
  env: Bindings<"LIMITER">,
  subject: `sender:${string}` | `agent:${string}` | `register:${string}`,
) => stub<LimiterDO>(env.LIMITER, subject);

/** One object per (sender, idempotency key). */
export const idempotencyFor = (env: Bindings<"IDEMPOTENCY">, sender: string, key: string) =>
  stub<IdempotencyDO>(env.IDEMPOTENCY, `${sender}\n${key}`);

/**
 * The deployment's control plane: keys, approval rules, chat access, pairing requests, refusal
 * counts (docs/architecture.md#the-control-plane). Hot reads go through in-force.ts's trusted copies.
 */
export const deploymentOf = (env: Bindings<"DEPLOYMENT">) => stub<DeploymentRpc>(env.DEPLOYMENT, "global");

type MetricsBindings = Bindings<"METRICS_SHARD" | "METRICS_SHARDS">;

/** How many metrics shards there are: METRICS_SHARDS, 1 to 64, default 8. */
export function metricsShardCount(env: MetricsBindings): number {
  const n = Number(env.METRICS_SHARDS ?? "8");
  return Number.isInteger(n) && n >= 1 && n <= 64 ? n : 8;
}

const shardStub = (ns: DurableObjectNamespace, index: number) => stub<MetricsShardDO>(ns, `shard-${index}`);

/** The shard a conversation's index row and run metrics go to. */
export const metricsShardFor = (env: MetricsBindings, conversationId: string) =>
  shardStub(env.METRICS_SHARD, shardFor(conversationId, metricsShardCount(env)));

/** Every metrics shard, for reads that merge them. */
export const allMetricsShards = (env: MetricsBindings) =>
  Array.from({ length: metricsShardCount(env) }, (_, i) => shardStub(env.METRICS_SHARD, i));

/** The deployment's schedules. */
export const schedulerOf = (env: Bindings<"SCHEDULER">) => stub<SchedulerRpc>(env.SCHEDULER, "global");

/** One object per session of the fleet's MCP server. */
export const mcpSessionFor = (env: Bindings<"MCP_SESSION">, sessionId: string) =>
  stub<McpSessionDO>(env.MCP_SESSION, sessionId);

/** One object per chat thread, named `<platform>:<chat id>[:<thread id>]`. */
export const chatThreadFor = (env: Bindings<"CHAT_THREAD">, threadKey: string) =>
  stub<ChatThreadRpc>(env.CHAT_THREAD, threadKey);
