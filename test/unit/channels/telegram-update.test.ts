import { describe, expect, it } from "vitest";
import { telegramPlatform as telegram } from "../../../durable-objects/channels/platforms/telegram/index.js";
import type { TelegramSettings } from "../../../durable-objects/channels/platforms/telegram/settings.js";

const settings: TelegramSettings = {
  TELEGRAM_BOT_TOKEN: "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11",
  TELEGRAM_WEBHOOK_SECRET: "a-webhook-secret-of-some-length",
  TELEGRAM_API_BASE_URL: "https://api.telegram.org",
};
const telegramSettings = telegram.settings;

/** The Bot API documentation's sample update, as Telegram posts it. */
const DOC_MESSAGE = {
  update_id: 10000,
  message: {
    date: 1441645532,
    chat: { last_name: "Test Lastname", id: 1111111, first_name: "Test", username: "Test", type: "private" },
    message_id: 1365,
    from: { last_name: "Test Lastname", id: 1111111, first_name: "Test", username: "Test" },
    text: "/start",
  },
};

const request = (body: unknown, secret: string | null = settings.TELEGRAM_WEBHOOK_SECRET) =>
  new Request("https://worker.example/v1/channels/telegram", {
    method: "POST",
    headers: { "content-type": "application/json", ...(secret ? { "X-Telegram-Bot-Api-Secret-Token": secret } : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

describe("Telegram inbound", () => {
  it("parses the documented message update into one message event keyed by update_id", async () => {
    const out = await telegram.inbound(request(DOC_MESSAGE), settings);
    expect(out).toEqual({
      ok: true,
      events: [
        {
          kind: "message",
          eventId: "10000",
          chat: { chatId: "1111111" },
          user: { id: "1111111", name: "Test Test Lastname (@Test)" },
          chatType: "direct",
          text: "/start",
          images: [],
        },
      ],
    });
  });

  it("refuses a missing or wrong secret token with 401, and a body that is not an update with 400", async () => {
    expect(await telegram.inbound(request(DOC_MESSAGE, null), settings)).toMatchObject({ ok: false, status: 401 });
    expect(await telegram.inbound(request(DOC_MESSAGE, "wrong-secret-token-value"), settings)).toMatchObject({
      ok: false,
      status: 401,
    });
    expect(await telegram.inbound(request("{not json"), settings)).toMatchObject({ ok: false, status: 400 });
    expect(await telegram.inbound(request({ message: {} }), settings)).toMatchObject({ ok: false, status: 400 });
  });

  it("a topic message is its own thread; a photo brings its largest size; a bot's message is ignored", async () => {
    const topic = {
      update_id: 7,
      message: {
        message_id: 3,
        message_thread_id: 42,
        is_topic_message: true,
        from: { id: 5, first_name: "A" },
        chat: { id: -100123, type: "supergroup" },
        date: 1,
        caption: "what is this?",
        photo: [
          { file_id: "small", width: 90, height: 90 },
          { file_id: "large", width: 1280, height: 960 },
        ],
      },
    };
    const out = await telegram.inbound(request(topic), settings);
    expect(out.ok && out.events[0]).toMatchObject({
      chat: { chatId: "-100123", threadId: "42" },
      chatType: "group",
      text: "what is this?",
      images: [{ ref: "large" }],
    });
    const bot = { update_id: 8, message: { ...topic.message, from: { id: 9, is_bot: true, first_name: "B" } } };
    expect(await telegram.inbound(request(bot), settings)).toEqual({ ok: true, events: [] });
  });

  it("a callback query is a button event carrying its data, the card's message and the query id", async () => {
    const press = {
      update_id: 11,
      callback_query: {
        id: "4382bfdwdsb323b2d9",
        from: { id: 1111111, first_name: "Test" },
        message: { message_id: 77, chat: { id: 1111111, type: "private" }, date: 1 },
        chat_instance: "-1",
        data: "abcdef1234:o",
      },
    };
    const out = await telegram.inbound(request(press), settings);
    expect(out.ok && out.events).toEqual([
      {
        kind: "button",
        eventId: "11",
        chat: { chatId: "1111111" },
        user: { id: "1111111", name: "Test" },
        data: "abcdef1234:o",
        messageId: "77",
        ackToken: "4382bfdwdsb323b2d9",
      },
    ]);
  });
});

describe("Telegram settings", () => {
  it("is off until a secret is set, names the missing one or a bad value, and takes 1-256 of A-Z a-z 0-9 _ -", () => {
    expect(telegramSettings({})).toEqual({ ok: true, value: null });
    const half = telegramSettings({ TELEGRAM_BOT_TOKEN: settings.TELEGRAM_BOT_TOKEN });
    expect(half.ok === false && half.error).toMatch(/^TELEGRAM_WEBHOOK_SECRET/);
    const secret = (s: string) =>
      telegramSettings({ TELEGRAM_BOT_TOKEN: settings.TELEGRAM_BOT_TOKEN, TELEGRAM_WEBHOOK_SECRET: s }).ok;
    expect([secret("x"), secret("A-z_09".repeat(42).slice(0, 256))]).toEqual([true, true]);
    expect([secret("x".repeat(257)), secret("has space"), secret("dot.ted")]).toEqual([false, false, false]);
    const on = telegramSettings({
      TELEGRAM_BOT_TOKEN: settings.TELEGRAM_BOT_TOKEN,
      TELEGRAM_WEBHOOK_SECRET: settings.TELEGRAM_WEBHOOK_SECRET,
      TELEGRAM_API_BASE_URL: "http://127.0.0.1:9999/",
    });
    expect(on).toEqual({ ok: true, value: { ...settings, TELEGRAM_API_BASE_URL: "http://127.0.0.1:9999" } });
    const bad = telegramSettings({
      TELEGRAM_BOT_TOKEN: "12/34",
      TELEGRAM_WEBHOOK_SECRET: settings.TELEGRAM_WEBHOOK_SECRET,
    });
    expect(bad.ok === false && bad.error).toMatch(/^TELEGRAM_BOT_TOKEN/);
  });
});
