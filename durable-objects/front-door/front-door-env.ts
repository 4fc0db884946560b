import type { DurableObjectBindings } from "../bindings.js";
import type { ConversationVars } from "../conversation/settings/conversation-settings.js";
import type { ModelEnv } from "../conversation/settings/model-settings.js";
import type { HubVars } from "../device-hub/hub-settings.js";
import type { WorkerVars } from "./front-door-config.js";

/**
 * What the front door reads: the objects it calls and the vars it validates. The worker's routes
 * and the scheduler's runs both pass messages through it, so both environments include this one.
 */
export type FrontDoorEnv = DurableObjectBindings & WorkerVars & ConversationVars & ModelEnv & HubVars;
