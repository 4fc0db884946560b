import { z } from "zod";

/** Discord's settings, as the worker's vars name them. The channel is on when the secrets are set. */
export const DiscordSettingsSchema = z.object({
  DISCORD_PUBLIC_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, "the application's public key: 64 hex digits")
    .describe("The Discord application's public key (General Information), which verifies every interaction."),
  DISCORD_BOT_TOKEN: z.string().min(1).describe("Secret. The Discord bot's token, for its REST calls."),
  DISCORD_APPLICATION_ID: z
    .string()
    .regex(/^\d{1,20}$/, "the application id: a snowflake")
    .describe("The Discord application's id, for interaction follow-ups."),
  DISCORD_API_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .default("https://discord.com/api/v10")
    .transform((u) => u.replace(/\/+$/, ""))
    .describe("Discord's REST API base URL, version included; tests point it at a local stand-in."),
});

export type DiscordSettings = z.output<typeof DiscordSettingsSchema>;

/** How far `X-Signature-Timestamp` may be from the clock before a request counts as a replay. */
export const DISCORD_TOLERANCE_SECONDS = 300;
