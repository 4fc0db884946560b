import { Hono } from "hono";
import { deploymentOf } from "../../durable-objects/addresses.js";
import { hubSettings } from "../../durable-objects/device-hub/hub-settings.js";
import type { AppEnv } from "../env.js";
import { authorizeAdmin } from "../middleware/authorize.js";

export const limits = new Hono<AppEnv>();

limits.use("*", authorizeAdmin);

/** GET /v1/limits — the front door's limits in force, and how often each kind of refusal happened. */
limits.get("/", async (c) => {
  const k = c.var.config;
  const hub = hubSettings(c.env);
  return c.json({
    limits: {
      max_body_bytes: k.MAX_BODY_BYTES,
      max_text_chars: k.MAX_TEXT_CHARS,
      sender: { per_minute: k.RATE_LIMIT_SENDER_PER_MIN, burst: k.RATE_LIMIT_SENDER_BURST },
      agent: { per_minute: k.RATE_LIMIT_AGENT_PER_MIN, burst: k.RATE_LIMIT_AGENT_BURST },
      oauth_registration: { per_minute: k.RATE_LIMIT_REGISTER_PER_MIN, burst: k.RATE_LIMIT_REGISTER_BURST },
      open_conversations_per_agent: k.MAX_OPEN_CONVERSATIONS_PER_AGENT,
      conversation_idle_seconds: k.CONVERSATION_IDLE_SECONDS,
      webhook_tolerance_seconds: k.WEBHOOK_TOLERANCE_SECONDS,
      message_auth: [...k.MESSAGE_AUTH],
      device_max_frame_bytes: hub.maxFrameBytes,
      heartbeat: { interval_ms: hub.heartbeatIntervalMs, misses: hub.heartbeatMisses },
    },
    rejections: await deploymentOf(c.env).rejections(),
  });
});
