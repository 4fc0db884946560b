import type { ChatPlatform, PlatformName } from "../platform.js";
import { DiscordSettingsSchema, discordPlatform } from "./discord/index.js";
import { settingsWhenSet } from "./settings-when-set.js";
import { SlackSettingsSchema, slackPlatform } from "./slack/index.js";
import { telegram } from "./telegram/telegram-platform.js";
import { telegramSettings } from "./telegram/telegram-settings.js";
import { WhatsAppSettingsSchema, whatsappPlatform } from "./whatsapp/index.js";

/** A platform's settings as its module reads them: null when the channel is not configured. */
export type SettingsResult<S> = { ok: true; value: S | null } | { ok: false; error: string };

/** One platform with the function that reads its settings from the deployment's vars. */
export type RegisteredPlatform<S = unknown> = {
  platform: ChatPlatform<S>;
  settings: (env: object) => SettingsResult<S>;
};

const register = <S>(platform: ChatPlatform<S>, settings: (env: object) => SettingsResult<S>) =>
  ({ platform, settings }) as RegisteredPlatform;

/**
 * The chat platforms the worker serves at `/v1/channels/:platform`. The channel core reaches a
 * platform only through this table and the seam in platform.ts. A platform module adds one line:
 * its `ChatPlatform` and the function reading its settings (null while the channel is off); its
 * vars schema goes in scripts/docs/settings-sources.ts.
 */
export const PLATFORMS: Record<PlatformName, RegisteredPlatform> = {
  telegram: register(telegram, telegramSettings),
  slack: register(slackPlatform, settingsWhenSet(SlackSettingsSchema)),
  discord: register(discordPlatform, settingsWhenSet(DiscordSettingsSchema)),
  whatsapp: register(whatsappPlatform, settingsWhenSet(WhatsAppSettingsSchema)),
};

export function platformNamed(name: string): RegisteredPlatform | null {
  return Object.hasOwn(PLATFORMS, name) ? PLATFORMS[name as PlatformName] : null;
}
