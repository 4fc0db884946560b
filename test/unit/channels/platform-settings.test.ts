import { describe, expect, it } from "vitest";
import { settingsWhenSet } from "../../../durable-objects/channels/platforms/common/settings-when-set.js";
import { PLATFORMS } from "../../../durable-objects/channels/platforms/index.js";
import { SlackSettingsSchema } from "../../../durable-objects/channels/platforms/slack/settings.js";
import { HooksVarsSchema } from "../../../worker/hooks/hook-settings.js";

const slackSettings = settingsWhenSet(SlackSettingsSchema);

describe("a platform's settings", () => {
  it("are off while none of its required vars is set, even with its base URL given", () => {
    expect(slackSettings({})).toEqual({ ok: true, value: null });
    expect(slackSettings({ SLACK_API_BASE_URL: "http://127.0.0.1:9/api", SLACK_BOT_TOKEN: "" })).toEqual({
      ok: true,
      value: null,
    });
  });

  it("name the missing one once any is set, rather than leaving the channel silently off", () => {
    const half = slackSettings({ SLACK_BOT_TOKEN: "xoxb-1" });
    expect(half.ok).toBe(false);
    expect(!half.ok && half.error).toMatch(/^SLACK_SIGNING_SECRET/);
  });

  it("take the platform's default API base URL when set", () => {
    expect(slackSettings({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "s" })).toEqual({
      ok: true,
      value: { SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "s", SLACK_API_BASE_URL: "https://slack.com/api" },
    });
  });

  it("are read for every platform the core serves", () => {
    expect(Object.keys(PLATFORMS).sort()).toEqual(["discord", "slack", "telegram", "whatsapp"]);
    for (const platform of Object.values(PLATFORMS)) expect(platform.settings({})).toEqual({ ok: true, value: null });
  });
});

describe("a named hook's reply channel", () => {
  const withReply = (reply: unknown) =>
    HooksVarsSchema.safeParse({
      HOOKS: JSON.stringify({ gh: { verify: "github", agent: "pi-1", template: "x", reply } }),
      HOOK_SECRETS: "gh:s",
    });

  it("names a platform and a chat, and a thread when it has one", () => {
    expect(withReply({ platform: "slack", chat: "C0123", thread: "1700000000.000100" }).success).toBe(true);
    expect(withReply({ platform: "telegram", chat: "-1001234567890" }).success).toBe(true);
  });

  it("refuses an unknown platform, a missing chat, or a chat id that is not one", () => {
    expect(withReply({ platform: "icq", chat: "1" }).success).toBe(false);
    expect(withReply({ platform: "slack" }).success).toBe(false);
    expect(withReply({ platform: "slack", chat: "C0123/../x" }).success).toBe(false);
    expect(withReply({ platform: "slack", chat: "C0123", channel: "oops" }).success).toBe(false);
  });
});
