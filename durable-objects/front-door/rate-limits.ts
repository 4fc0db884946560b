import { limiterFor } from "../addresses.js";
import type { WorkerConfig } from "./front-door-config.js";
import type { FrontDoorEnv } from "./front-door-env.js";
import type { Admission } from "./limiter-do.js";
import { type BucketLimits, type Take, takeAdmission } from "./token-bucket.js";

/**
 * A sender's bucket kept by the sender's own object: a chat thread is the one object of its sender
 * (`chat:<thread>`), so its bucket lives there and a message asks no limiter for it.
 */
export type OwnBucket = { take(limits: BucketLimits, now: number): Take };

/** One token from the sender's bucket. */
export async function admitSender(
  env: FrontDoorEnv,
  cfg: WorkerConfig,
  senderId: string,
  own?: OwnBucket,
): Promise<Admission> {
  const limits = { perMinute: cfg.RATE_LIMIT_SENDER_PER_MIN, burst: cfg.RATE_LIMIT_SENDER_BURST };
  if (own) return takeAdmission(own.take(limits, Date.now()), limits);
  return limiterFor(env, `sender:${senderId}`).admit(limits);
}

/** One token from the agent's bucket, and room for the conversation among its open ones. */
export async function admitAgent(
  env: FrontDoorEnv,
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
