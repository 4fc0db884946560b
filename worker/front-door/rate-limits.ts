import { limiterFor } from "../../durable-objects/addresses.js";
import type { Admission } from "../../durable-objects/front-door/limiter-do.js";
import type { WorkerConfig } from "../config.js";
import type { Env } from "../env.js";

/** One token from the sender's bucket. */
export async function admitSender(env: Env, cfg: WorkerConfig, senderId: string): Promise<Admission> {
  return limiterFor(env, `sender:${senderId}`).admit({
    perMinute: cfg.RATE_LIMIT_SENDER_PER_MIN,
    burst: cfg.RATE_LIMIT_SENDER_BURST,
  });
}

/** One token from the agent's bucket, and room for the conversation among its open ones. */
export async function admitAgent(
  env: Env,
  cfg: WorkerConfig,
  agentId: string,
  conversationId: string,
): Promise<Admission> {
  return limiterFor(env, `agent:${agentId}`).admitAgent({
    perMinute: cfg.RATE_LIMIT_AGENT_PER_MIN,
    burst: cfg.RATE_LIMIT_AGENT_BURST,
    conversationId,
    maxOpen: cfg.MAX_OPEN_CONVERSATIONS_PER_AGENT,
    idleMs: cfg.CONVERSATION_IDLE_SECONDS * 1000,
  });
}
