import type { ConversationDO } from "../durable-objects/conversation/conversation-do.js";
import type { DeviceHubDO } from "../durable-objects/device-hub/device-hub-do.js";

/** Bindings and vars as wrangler.toml, .dev.vars and `--var` provide them. All vars are strings. */
export interface Env {
  CONVERSATION: DurableObjectNamespace<ConversationDO>;
  DEVICE_HUB: DurableObjectNamespace<DeviceHubDO>;
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  LLM_MODEL?: string;
  LLM_MAX_RETRIES?: string;
  LLM_TIMEOUT_MS?: string;
  API_TOKEN?: string;
  ADMIN_TOKEN?: string;
  DEVICE_TOKENS?: string;
  WEBHOOK_SECRETS?: string;
  MAX_ITERATIONS?: string;
  TOOL_ERROR_LIMIT?: string;
  MAX_PARALLEL?: string;
  MAX_RESULT_CHARS?: string;
  SYSTEM_PROMPT?: string;
  DEVICE_RESULT_GRACE_MS?: string;
}
