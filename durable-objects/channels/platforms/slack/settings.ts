import { z } from "zod";

/** Slack's settings, as the worker's vars name them. The channel is on when the secrets are set. */
export const SlackSettingsSchema = z.object({
  SLACK_SIGNING_SECRET: z
    .string()
    .min(1)
    .describe("Secret. The Slack app's signing secret (Basic Information → App Credentials): verifies every request."),
  SLACK_BOT_TOKEN: z.string().min(1).describe("Secret. The Slack app's bot token (`xoxb-…`), for its Web API calls."),
  SLACK_API_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .default("https://slack.com/api")
    .transform((u) => u.replace(/\/+$/, ""))
    .describe("Slack's Web API base URL; tests point it at a local stand-in."),
});

export type SlackSettings = z.output<typeof SlackSettingsSchema>;

/** How far `X-Slack-Request-Timestamp` may be from the clock: Slack's own advice is five minutes. */
export const SLACK_TOLERANCE_SECONDS = 300;
