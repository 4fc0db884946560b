import { z } from "zod";
import { ChannelVarsSchema } from "../../durable-objects/channels/channel-settings.js";
import { PLATFORMS } from "../../durable-objects/channels/platforms/index.js";
import { ConversationVarsSchema } from "../../durable-objects/conversation/settings/conversation-settings.js";
import { ImageVarsSchema } from "../../durable-objects/conversation/settings/image-settings.js";
import { ModelVarsSchema } from "../../durable-objects/conversation/settings/model-settings.js";
import { McpAuthVarsSchema } from "../../durable-objects/deployment/mcp-oauth-settings.js";
import { PairingVarsSchema } from "../../durable-objects/deployment/pairing-settings.js";
import { HubVarsSchema } from "../../durable-objects/device-hub/hub-settings.js";
import { WorkerVarsSchema } from "../../durable-objects/front-door/front-door-config.js";
import { SchedulerVarsSchema } from "../../durable-objects/scheduler/scheduler-settings.js";
import { intVar } from "../../runtime/vars.js";
import { HooksVarsSchema } from "../../worker/hooks/hook-settings.js";
import type { SettingsSource } from "./settings-reference.js";

/**
 * Every schema the deployment's vars are parsed with, in the order docs/configuration.md shows them.
 * A new `parseVars` schema belongs here; the docs test fails on a var without a description.
 */
export const SETTINGS_SOURCES: SettingsSource[] = [
  { part: "model", file: "durable-objects/conversation/settings/model-settings.ts", schema: ModelVarsSchema },
  { part: "images", file: "durable-objects/conversation/settings/image-settings.ts", schema: ImageVarsSchema },
  { part: "front door", file: "durable-objects/front-door/front-door-config.ts", schema: WorkerVarsSchema },
  {
    part: "conversation",
    file: "durable-objects/conversation/settings/conversation-settings.ts",
    schema: ConversationVarsSchema,
  },
  {
    part: "remote MCP servers' OAuth",
    file: "durable-objects/deployment/mcp-oauth-settings.ts",
    schema: McpAuthVarsSchema,
  },
  { part: "device hub", file: "durable-objects/device-hub/hub-settings.ts", schema: HubVarsSchema },
  { part: "scheduler", file: "durable-objects/scheduler/scheduler-settings.ts", schema: SchedulerVarsSchema },
  { part: "chat channels", file: "durable-objects/channels/channel-settings.ts", schema: ChannelVarsSchema },
  // Each chat platform's own, from the registry: its settings live in its folder's settings.ts.
  ...Object.values(PLATFORMS).map((platform) => ({
    part: `${platform.title} channel`,
    file: `durable-objects/channels/platforms/${platform.name}/settings.ts`,
    schema: platform.settingsSchema,
  })),
  { part: "named hooks", file: "worker/hooks/hook-settings.ts", schema: HooksVarsSchema },
  { part: "pairing", file: "durable-objects/deployment/pairing-settings.ts", schema: PairingVarsSchema },
  {
    part: "metrics",
    file: "durable-objects/addresses.ts",
    // addresses.ts reads this one var by hand (falling back to 8 outside 1–64); described here.
    schema: z.object({
      METRICS_SHARDS: intVar(1, 64)
        .default(8)
        .describe("How many shards hold the loop metrics and the conversation index."),
    }),
  },
];
