import type { ChannelVars } from "../durable-objects/channels/channel-settings.js";
import type { PairingVars } from "../durable-objects/deployment/pairing-settings.js";
import type { WorkerConfig } from "../durable-objects/front-door/front-door-config.js";
import type { FrontDoorEnv } from "../durable-objects/front-door/front-door-env.js";
import type { SchedulerVars } from "../durable-objects/scheduler/scheduler-settings.js";
import type { Principal } from "../runtime/access.js";
import type { HooksVars } from "./hooks/hook-settings.js";

/**
 * Bindings and vars as wrangler.toml, .dev.vars and `--var` provide them (all vars are strings):
 * the Durable Object namespaces, and the vars of each part that reads them,
 * declared beside the code that parses them.
 */
export interface Env extends FrontDoorEnv, SchedulerVars, ChannelVars, HooksVars, PairingVars {
  /** OAuth clients, grants and tokens for `/mcp` (oauth/authorization-server.ts); hashes and encrypted props only */
  OAUTH_KV: KVNamespace;
}

/**
 * What every route may read from its context: the settings, parsed once (middleware/load-config.ts),
 * and who the request speaks for, once an `authorize` middleware has let it through
 * (middleware/authorize.ts).
 */
export type AppEnv = { Bindings: Env; Variables: { config: WorkerConfig; principal: Principal } };
