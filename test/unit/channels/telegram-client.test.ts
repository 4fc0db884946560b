import { describe, expect, it } from "vitest";
import { TelegramClient } from "../../../durable-objects/channels/platforms/telegram/client.js";

type Seen = { url: string; body: Record<string, unknown> };

/** A fetch answering the Bot API's JSON, one scripted answer per call. */
function botApi(answers: { status: number; body: unknown }[]) {
  const seen: Seen[] = [];
  const fetchImpl = (async (url: string, init: RequestInit) => {
    seen.push({ url, body: JSON.parse(String(init.body)) as Record<string, unknown> });
    const a = answers.shift() ?? { status: 200, body: { ok: true, result: { message_id: 1 } } };
    return new Response(JSON.stringify(a.body), { status: a.status, headers: { "content-type": "application/json" } });
  }) as unknown as typeof fetch;
  return { seen, fetchImpl };
}

const settings = {
  TELEGRAM_BOT_TOKEN: "1:tok",
  TELEGRAM_WEBHOOK_SECRET: "s".repeat(20),
  TELEGRAM_API_BASE_URL: "http://standin",
};

describe("Telegram client", () => {
  it("sends HTML to the method URL under the base URL, in the topic, with inline buttons", async () => {
    const api = botApi([{ status: 200, body: { ok: true, result: { message_id: 55 } } }]);
    const client = new TelegramClient(settings, api.fetchImpl);
    const sent = await client.send(
      { chatId: "-100", threadId: "7" },
      { markdown: "**hi**", buttons: [[{ label: "Approve", data: "abcdef:o" }]] },
    );
    expect(sent).toEqual({ ok: true, messageId: "55" });
    expect(api.seen[0]).toEqual({
      url: "http://standin/bot1:tok/sendMessage",
      body: {
        chat_id: "-100",
        message_thread_id: 7,
        text: "<b>hi</b>",
        parse_mode: "HTML",
        reply_markup: { inline_keyboard: [[{ text: "Approve", callback_data: "abcdef:o" }]] },
      },
    });
  });

  it("a 429 is retryable after Telegram's retry_after; a 5xx is retryable; a 403 is not", async () => {
    const api = botApi([
      {
        status: 429,
        body: {
          ok: false,
          error_code: 429,
          description: "Too Many Requests: retry after 7",
          parameters: { retry_after: 7 },
        },
      },
      { status: 502, body: { ok: false, error_code: 502, description: "Bad Gateway" } },
      { status: 403, body: { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" } },
    ]);
    const client = new TelegramClient(settings, api.fetchImpl);
    const to = { chatId: "1" };
    expect(await client.send(to, { markdown: "a" })).toMatchObject({ ok: false, retryable: true, retryAfterMs: 7000 });
    expect(await client.send(to, { markdown: "a" })).toMatchObject({ ok: false, retryable: true });
    expect(await client.send(to, { markdown: "a" })).toMatchObject({ ok: false, retryable: false });
  });

  it("text Telegram cannot parse as HTML is sent again as plain text", async () => {
    const api = botApi([
      { status: 400, body: { ok: false, error_code: 400, description: "Bad Request: can't parse entities: x" } },
      { status: 200, body: { ok: true, result: { message_id: 9 } } },
    ]);
    const sent = await new TelegramClient(settings, api.fetchImpl).send({ chatId: "1" }, { markdown: "**a *b** c*" });
    expect(sent).toEqual({ ok: true, messageId: "9" });
    expect(api.seen[1]!.body).toEqual({ chat_id: "1", text: "**a *b** c*" });
  });

  it("an edit to the same text is done, not an error; an edit without buttons removes them", async () => {
    const api = botApi([
      { status: 400, body: { ok: false, error_code: 400, description: "Bad Request: message is not modified" } },
    ]);
    const edited = await new TelegramClient(settings, api.fetchImpl).edit({ chatId: "1" }, "12", { markdown: "same" });
    expect(edited).toEqual({ ok: true, messageId: "12" });
    expect(api.seen[0]!.body).toMatchObject({ message_id: 12, reply_markup: { inline_keyboard: [] } });
  });

  it("a network failure is retryable", async () => {
    const failing = (async () => {
      throw new TypeError("fetch failed");
    }) as unknown as typeof fetch;
    expect(await new TelegramClient(settings, failing).send({ chatId: "1" }, { markdown: "a" })).toMatchObject({
      ok: false,
      retryable: true,
    });
  });
});

describe("Telegram client, pictures", () => {
  it("sends a photo as multipart with its caption; fetches a user's photo through getFile", async () => {
    const seen: { url: string; body: unknown }[] = [];
    const fetchImpl = (async (url: string, init?: RequestInit) => {
      seen.push({ url, body: init?.body });
      if (url.endsWith("/sendPhoto")) return Response.json({ ok: true, result: { message_id: 31 } });
      if (url.endsWith("/getFile")) return Response.json({ ok: true, result: { file_path: "photos/f1.jpg" } });
      if (url.endsWith("/file/bot1:tok/photos/f1.jpg")) return new Response(new Uint8Array([1, 2, 3]));
      return new Response("{}", { status: 404 });
    }) as unknown as typeof fetch;
    const client = new TelegramClient(settings, fetchImpl);
    const sent = await client.send(
      { chatId: "5" },
      { markdown: "", image: { bytes: new Uint8Array([9, 9]), mediaType: "image/png", caption: "a chart" } },
    );
    expect(sent).toEqual({ ok: true, messageId: "31" });
    const form = seen[0]!.body as FormData;
    expect(form.get("chat_id")).toBe("5");
    expect(form.get("caption")).toBe("a chart");
    expect((form.get("photo") as Blob).size).toBe(2);
    const image = await client.fetchImage({ ref: "f1", mediaType: "image/jpeg" });
    expect([...image.bytes]).toEqual([1, 2, 3]);
    expect(JSON.parse(String(seen[1]!.body))).toEqual({ file_id: "f1" });
  });
});
