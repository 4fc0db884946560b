import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toWhatsAppText } from "../../../durable-objects/channels/platforms/whatsapp/format.js";
import { whatsappPlatform } from "../../../durable-objects/channels/platforms/whatsapp/index.js";
import type { WhatsAppSettings } from "../../../durable-objects/channels/platforms/whatsapp/settings.js";
import { hubSignature256 } from "../../helpers/platform-signers.js";
import { type MultipartBody, ONE_PIXEL_PNG } from "../../helpers/platform-standins/recording-server.js";
import { startWhatsAppStandIn, whatsappRateLimited } from "../../helpers/platform-standins/whatsapp.js";

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/channels/${name}`, import.meta.url), "utf8");
const APP_SECRET = "meta-app-secret";
const TOKEN = "EAAJB-test-token";
const PHONE_ID = "106540352242922";

let standIn: Awaited<ReturnType<typeof startWhatsAppStandIn>>;
let settings: WhatsAppSettings;
beforeAll(async () => {
  standIn = await startWhatsAppStandIn(TOKEN);
  settings = {
    WHATSAPP_APP_SECRET: APP_SECRET,
    WHATSAPP_VERIFY_TOKEN: "my-verify-token",
    WHATSAPP_ACCESS_TOKEN: TOKEN,
    WHATSAPP_PHONE_NUMBER_ID: PHONE_ID,
    WHATSAPP_API_BASE_URL: standIn.apiBaseUrl,
    WHATSAPP_API_VERSION: "v23.0",
  };
});
afterAll(() => standIn.close());

const URL_ = "https://edgeloop.example/v1/channels/whatsapp";
const post = (body: string, signature: string) =>
  new Request(URL_, {
    method: "POST",
    headers: { "content-type": "application/json", "x-hub-signature-256": signature },
    body,
  });
const signed = (body: string) => post(body, hubSignature256(APP_SECRET, body));

describe("WhatsApp inbound", () => {
  it("answers Meta's GET handshake with the challenge as plain text, only for the right verify token", async () => {
    const get = (token: string) =>
      new Request(`${URL_}?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=${token}`);
    expect(await whatsappPlatform.inbound(get("my-verify-token"), settings)).toEqual({
      ok: true,
      events: [],
      immediate: { status: 200, body: "1158201444" },
    });
    expect(await whatsappPlatform.inbound(get("guess"), settings)).toMatchObject({ ok: false, status: 403 });
  });

  it("turns a text message into a direct message keyed by its wamid", async () => {
    expect(await whatsappPlatform.inbound(signed(fixture("whatsapp-text.json")), settings)).toEqual({
      ok: true,
      events: [
        {
          kind: "message",
          eventId: "wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=",
          chat: { chatId: "16505551234" },
          user: { id: "16505551234", name: "Sheena Nelson" },
          chatType: "direct",
          text: "Does it come in another color?",
          images: [],
        },
      ],
    });
  });

  it("turns a button reply into a button event on the card it answers", async () => {
    const out = await whatsappPlatform.inbound(signed(fixture("whatsapp-button-reply.json")), settings);
    expect(out.ok && out.events).toEqual([
      {
        kind: "button",
        eventId: "wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=",
        chat: { chatId: "16505551234" },
        user: { id: "16505551234", name: "Sheena Nelson" },
        data: "change-button",
        messageId: "wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3NjNFN0U5QzMzMDA0Q0I1M0IA",
      },
    ]);
  });

  it("takes a list reply (more than three options) as a button event too", async () => {
    const body = JSON.parse(fixture("whatsapp-button-reply.json"));
    body.entry[0].changes[0].value.messages[0].interactive = {
      type: "list_reply",
      list_reply: { id: "q:4", title: "Option 4", description: "" },
    };
    const out = await whatsappPlatform.inbound(signed(JSON.stringify(body)), settings);
    expect(out.ok && out.events[0]).toMatchObject({ kind: "button", data: "q:4" });
  });

  it("takes an image with its caption, drops statuses and other numbers' messages", async () => {
    const image = await whatsappPlatform.inbound(signed(fixture("whatsapp-image.json")), settings);
    expect(image.ok && image.events[0]).toMatchObject({
      text: "Is this the right one?",
      images: [{ ref: "1003383421387256", mediaType: "image/jpeg" }],
    });
    expect(await whatsappPlatform.inbound(signed(fixture("whatsapp-status.json")), settings)).toEqual({
      ok: true,
      events: [],
    });
    const other = fixture("whatsapp-text.json").replace(PHONE_ID, "999");
    expect(await whatsappPlatform.inbound(signed(other), settings)).toEqual({ ok: true, events: [] });
  });

  it("refuses a wrong or missing X-Hub-Signature-256 with 401", async () => {
    const body = fixture("whatsapp-text.json");
    for (const sig of [hubSignature256("other", body), hubSignature256(APP_SECRET, `${body}\n`), "", "sha1=abc"]) {
      expect(await whatsappPlatform.inbound(post(body, sig), settings)).toMatchObject({ ok: false, status: 401 });
    }
  });
});

describe("WhatsApp client against a stand-in Cloud API", () => {
  const to = { chatId: "16505551234" };
  const lastBody = () => standIn.calls.at(-1)!.body as Record<string, unknown>;

  it("sends text to /{version}/{phone id}/messages with the token", async () => {
    const out = await whatsappPlatform
      .client(settings)
      .send(to, { markdown: "**Done**: see [log](https://l.example)" });
    expect(out.ok).toBe(true);
    expect(standIn.calls.at(-1)).toMatchObject({
      method: "POST",
      path: `/v23.0/${PHONE_ID}/messages`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(lastBody()).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "16505551234",
      type: "text",
      text: { preview_url: false, body: "*Done*: see log (https://l.example)" },
    });
  });

  it("sends up to three reply buttons with titles cut to 20 characters", async () => {
    await whatsappPlatform.client(settings).send(to, {
      markdown: "Run bash on pi-1?",
      buttons: [
        [
          { label: "Approve", data: "ap:1:once" },
          { label: "Always allow this tool", data: "ap:1:always" },
        ],
        [{ label: "Deny", data: "ap:1:deny" }],
      ],
    });
    expect(lastBody()).toMatchObject({
      type: "interactive",
      interactive: {
        type: "button",
        body: { text: "Run bash on pi-1?" },
        action: {
          buttons: [
            { type: "reply", reply: { id: "ap:1:once", title: "Approve" } },
            { type: "reply", reply: { id: "ap:1:always", title: "Always allow this t…" } },
            { type: "reply", reply: { id: "ap:1:deny", title: "Deny" } },
          ],
        },
      },
    });
    const titles = (
      lastBody().interactive as { action: { buttons: { reply: { title: string } }[] } }
    ).action.buttons.map((b) => b.reply.title.length);
    expect(Math.max(...titles)).toBeLessThanOrEqual(20);
  });

  it("sends more than three options as a list, and a text longer than an interactive body first on its own", async () => {
    const before = standIn.calls.length;
    const options = Array.from({ length: 5 }, (_, i) => ({ label: `Option ${i}`, data: `q:${i}` }));
    await whatsappPlatform.client(settings).send(to, { markdown: "x".repeat(1500), buttons: [options] });
    const [text, list] = standIn.calls.slice(before).map((c) => c.body as Record<string, unknown>);
    expect(text).toMatchObject({ type: "text", text: { body: "x".repeat(1500) } });
    expect(list).toMatchObject({
      type: "interactive",
      interactive: {
        type: "list",
        action: { button: "Choose", sections: [{ rows: options.map((o) => ({ id: o.data, title: o.label })) }] },
      },
    });
  });

  it("cannot edit: a card update goes out as a new message without buttons", async () => {
    const out = await whatsappPlatform
      .client(settings)
      .edit(to, "wamid.OLD", { markdown: "Approved by Sheena", buttons: [[{ label: "A", data: "a" }]] });
    expect(out.ok).toBe(true);
    expect(lastBody()).toMatchObject({ type: "text", text: { body: "Approved by Sheena" } });
  });

  it("tells the presser what a press did in a reply to the card, in their own chat", async () => {
    const press = {
      kind: "button" as const,
      eventId: "wamid.PRESS",
      chat: to,
      user: { id: to.chatId, name: "Sheena" },
      data: "c1:a",
      messageId: "wamid.CARD",
    };
    await whatsappPlatform.client(settings).answerButton(press, "You may not approve tool calls here.");
    expect(standIn.calls.at(-1)).toMatchObject({ method: "POST", path: `/v23.0/${PHONE_ID}/messages` });
    expect(lastBody()).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "16505551234",
      type: "text",
      context: { message_id: "wamid.CARD" },
      text: { preview_url: false, body: "You may not approve tool calls here." },
    });
  });

  it("marks a message read, and shows typing only for the message being answered", async () => {
    const client = whatsappPlatform.client(settings);
    const before = standIn.calls.length;
    await client.typing(to);
    expect(standIn.calls.length).toBe(before);
    await client.typing(to, "wamid.ASK");
    expect(lastBody()).toEqual({
      messaging_product: "whatsapp",
      status: "read",
      message_id: "wamid.ASK",
      typing_indicator: { type: "text" },
    });
    expect(standIn.calls.at(-1)!.answer).toEqual({ success: true });
    await client.markRead!(to, "wamid.CMD");
    expect(lastBody()).toEqual({ messaging_product: "whatsapp", status: "read", message_id: "wamid.CMD" });
    expect(standIn.calls.at(-1)!.answer).toEqual({ success: true });
  });

  it("uploads a photo to /media, then sends it by id", async () => {
    const before = standIn.calls.length;
    const out = await whatsappPlatform
      .client(settings)
      .send(to, { markdown: "", image: { bytes: ONE_PIXEL_PNG, mediaType: "image/png", caption: "graph" } });
    expect(out.ok).toBe(true);
    const [upload, send] = standIn.calls.slice(before);
    expect(upload!.path).toBe(`/v23.0/${PHONE_ID}/media`);
    const form = upload!.body as MultipartBody;
    expect(form.fields).toMatchObject({ messaging_product: "whatsapp", type: "image/png" });
    expect(form.files.file!.bytes).toEqual(ONE_PIXEL_PNG);
    const mediaId = (send!.body as { image: { id: string } }).image.id;
    expect(mediaId).toMatch(/^9000\d+$/);
    expect(send!.body).toMatchObject({ type: "image", image: { id: mediaId, caption: "graph" } });
  });

  it("resolves a media id and fetches the bytes with the token", async () => {
    const got = await whatsappPlatform.client(settings).fetchImage({ ref: "1003383421387256" });
    expect(Buffer.from(got.bytes)).toEqual(ONE_PIXEL_PNG);
    expect(got.mediaType).toBe("image/jpeg");
    expect(standIn.calls.slice(-2).map((c) => c.path)).toEqual([
      "/v23.0/1003383421387256",
      "/media-bytes/1003383421387256",
    ]);
  });

  it("reports throughput errors as retryable, a bad token as not", async () => {
    standIn.failNext("/messages", whatsappRateLimited());
    expect(await whatsappPlatform.client(settings).send(to, { markdown: "x" })).toMatchObject({
      ok: false,
      retryable: true,
    });
    const wrong = whatsappPlatform.client({ ...settings, WHATSAPP_ACCESS_TOKEN: "wrong" });
    expect(await wrong.send(to, { markdown: "x" })).toMatchObject({
      ok: false,
      retryable: false,
      error: expect.stringContaining("code 190"),
    });
  });
});

describe("Markdown to WhatsApp", () => {
  it("uses WhatsApp's single-character emphasis and leaves code alone", () => {
    expect(toWhatsAppText("# Report\n**bold** *it* ~~gone~~ `a **b**`")).toBe("*Report*\n*bold* _it_ ~gone~ `a **b**`");
  });
});
