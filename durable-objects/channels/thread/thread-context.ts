import { log } from "../../../runtime/log.js";
import { deploymentOf } from "../../addresses.js";
import type { FrontDoorEnv } from "../../front-door/front-door-env.js";
import type { ChannelVars } from "../channel-settings.js";
import type { ChatPlatform, PlatformClient, PlatformLimits } from "../platform.js";
import type { ThreadIdentity, ThreadStore } from "./thread-store.js";

export type ChatThreadEnv = FrontDoorEnv & ChannelVars;

/** What the thread's handlers share while one alarm runs. */
export type ThreadContext = {
  env: ChatThreadEnv;
  store: ThreadStore;
  identity: ThreadIdentity;
  /** The thread's platform (its title and limits), and its client made with the deployment's settings. */
  platform: ChatPlatform<unknown>;
  client: PlatformClient;
  limits: PlatformLimits;
};

/** Refusals are counted with the front door's (GET /v1/limits, the metrics endpoint). */
export async function countRefusal(env: ChatThreadEnv, platform: string, what: string): Promise<void> {
  await deploymentOf(env)
    .countRejection(`channel ${platform}: ${what}`)
    .catch((e: unknown) => log("warn", "channel refusal not counted", { error: String(e) }));
}
