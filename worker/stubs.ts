import type { Env } from "./env.js";

/** Where each Durable Object lives, in one place so every route names them the same way. */
export const hubFor = (env: Env, agentId: string) => env.DEVICE_HUB.get(env.DEVICE_HUB.idFromName(agentId));
export const conversationFor = (env: Env, id: string) => env.CONVERSATION.get(env.CONVERSATION.idFromName(id));
export const registryOf = (env: Env) => env.REGISTRY.get(env.REGISTRY.idFromName("global"));
export const limiterFor = (env: Env, subject: `sender:${string}` | `agent:${string}`) =>
  env.LIMITER.get(env.LIMITER.idFromName(subject));
export const idempotencyFor = (env: Env, sender: string, key: string) =>
  env.IDEMPOTENCY.get(env.IDEMPOTENCY.idFromName(`${sender}\n${key}`));
export const rejectionCounters = (env: Env) => env.COUNTERS.get(env.COUNTERS.idFromName("rejections"));
