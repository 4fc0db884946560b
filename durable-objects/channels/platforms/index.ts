import type { ChatPlatform, PlatformName } from "../platform.js";
import { discordPlatform } from "./discord/index.js";
import { slackPlatform } from "./slack/index.js";
import { telegramPlatform } from "./telegram/index.js";
import { whatsappPlatform } from "./whatsapp/index.js";

/**
 * The chat platforms the worker serves at `/v1/channels/:platform`: one line each. The channel
 * logic reaches a platform only through this table and the seam in platform.ts; a platform's name
 * is in protocol/channels.ts's CHANNEL_PLATFORMS, and the type checker refuses a name without its
 * line here. Adding a platform: docs/channels.md#adding-a-platform.
 */
export const PLATFORMS: { [P in PlatformName]: ChatPlatform<unknown> } = {
  telegram: telegramPlatform,
  slack: slackPlatform,
  discord: discordPlatform,
  whatsapp: whatsappPlatform,
};

export function platformNamed(name: string): ChatPlatform<unknown> | null {
  return Object.hasOwn(PLATFORMS, name) ? PLATFORMS[name as PlatformName] : null;
}
