import type { ChatPlatform, InboundResult } from "../../platform.js";
import { settingsWhenSet } from "../common/settings-when-set.js";
import { discordClient } from "./client.js";
import { parseInteraction } from "./inbound.js";
import { type DiscordSettings, DiscordSettingsSchema } from "./settings.js";
import { verifyDiscordRequest } from "./verify.js";

/**
 * Discord over HTTP interactions: slash commands (`/ask`, `/new`, `/device`) and button presses,
 * answered within Discord's 3 s by the immediate answer; replies are the bot's channel messages
 * over REST. No gateway connection, so plain messages in a channel are not seen.
 */
export const discordPlatform: ChatPlatform<DiscordSettings> = {
  name: "discord",
  title: "Discord",
  limits: {
    maxMessageLength: 2000,
    // Message edits share a bucket of 5 per 5 s per channel.
    minEditIntervalMs: 1000,
    canEdit: true,
    // An attachment may be 10 MiB on a server without boosts.
    photoMaxBytes: 10 * 1024 * 1024,
  },
  settingsSchema: DiscordSettingsSchema,
  settings: settingsWhenSet(DiscordSettingsSchema),
  async inbound(request: Request, settings: DiscordSettings): Promise<InboundResult> {
    const raw = await request.text();
    const verified = await verifyDiscordRequest(request.headers, raw, settings.DISCORD_PUBLIC_KEY, Date.now());
    if (!verified.ok) return { ok: false, status: 401, reason: verified.reason };
    return parseInteraction(raw);
  },
  client: discordClient,
  registration: (webhookUrl) =>
    `In discord.com/developers/applications → your app → General Information: Interactions Endpoint URL ${webhookUrl}`,
};
