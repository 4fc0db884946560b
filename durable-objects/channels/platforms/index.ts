import type { ChatPlatform, PlatformName } from "../platform.js";
import { telegram } from "./telegram/telegram-platform.js";
import { telegramSettings } from "./telegram/telegram-settings.js";

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
export const PLATFORMS: Partial<Record<PlatformName, RegisteredPlatform>> = {
  telegram: register(telegram, telegramSettings),
};

export function platformNamed(name: string): RegisteredPlatform | null {
  return Object.hasOwn(PLATFORMS, name) ? (PLATFORMS[name as PlatformName] ?? null) : null;
}
