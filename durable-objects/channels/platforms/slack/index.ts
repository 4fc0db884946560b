import type { ChatPlatform, InboundResult } from "../../platform.js";
import { settingsWhenSet } from "../common/settings-when-set.js";
import { slackClient } from "./client.js";
import { parseEventsBody, parseFormBody } from "./inbound.js";
import { type SlackSettings, SlackSettingsSchema } from "./settings.js";
import { verifySlackRequest } from "./verify.js";

/**
 * Slack: the Events API (messages in DMs, mentions in channels, each channel thread one
 * conversation), interactivity (Block Kit buttons) and slash commands, all on one request URL.
 */
export const slackPlatform: ChatPlatform<SlackSettings> = {
  name: "slack",
  title: "Slack",
  limits: {
    // A section block's text holds 3000 characters; longer answers are split.
    maxMessageLength: 3000,
    // chat.update is Tier 3 (about 50 a minute); one a second per message stays well inside it.
    minEditIntervalMs: 1000,
    canEdit: true,
    // files.upload takes up to 1 GB.
    photoMaxBytes: 1000 * 1000 * 1000,
  },
  settingsSchema: SlackSettingsSchema,
  settings: settingsWhenSet(SlackSettingsSchema),
  async inbound(request: Request, settings: SlackSettings): Promise<InboundResult> {
    const raw = await request.text();
    const verified = await verifySlackRequest(request.headers, raw, settings.SLACK_SIGNING_SECRET, Date.now());
    if (!verified.ok) return { ok: false, status: 401, reason: verified.reason };
    const type = request.headers.get("content-type") ?? "";
    return type.startsWith("application/x-www-form-urlencoded") ? parseFormBody(raw) : parseEventsBody(raw);
  },
  client: slackClient,
  registration: (webhookUrl) =>
    `In api.slack.com/apps → your app: Event Subscriptions, Interactivity and each slash command → Request URL ${webhookUrl}`,
};
