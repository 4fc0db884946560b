import type { DurableObjectBindings } from "../durable-objects/bindings.js";
import type { ConversationVars } from "../durable-objects/conversation/settings/conversation-settings.js";
import type { ModelEnv } from "../durable-objects/conversation/settings/model-settings.js";
import type { HubVars } from "../durable-objects/device-hub/hub-settings.js";
import type { SchedulerVars } from "../durable-objects/scheduler/scheduler-settings.js";
import type { WorkerVars } from "./config.js";

/**
 * Bindings and vars as wrangler.toml, .dev.vars and `--var` provide them (all vars are strings):
 * the Durable Object namespaces, and the vars of each part that reads them, declared beside the
 * code that parses them.
 */
export interface Env extends DurableObjectBindings, WorkerVars, ConversationVars, ModelEnv, HubVars, SchedulerVars {}
