import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageBody, toMrkdwn } from "../../../durable-objects/channels/platforms/slack/format.js";
import { slackPlatform } from "../../../durable-objects/channels/platforms/slack/index.js";
import type { SlackSettings } from "../../../durable-objects/channels/platforms/slack/settings.js";
import { slackHeaders } from "../../helpers/platform-signers.js";
import { ONE_PIXEL_PNG } from "../../helpers/platform-standins/recording-server.js";
import { slackRateLimited, startSlackStandIn } from "../../helpers/platform-standins/slack.js";

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/channels/${name}`, import.meta.url), "utf8");
const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const TOKEN = "xoxb-test-token";

let standIn: Awaited<ReturnType<typeof startSlackStandIn>>;
let settings: SlackSettings;
beforeAll(async () => {
  standIn = await startSlackStandIn(TOKEN);
  settings = { SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: TOKEN, SLACK_API_BASE_URL: standIn.apiBaseUrl };
});
afterAll(() => standIn.close());

function request(body: string, headers: Record<string, string>, type = "application/json") {
  return new Request("https://edgeloop.example/v1/channels/slack", {
    method: "POST",
    headers: { "content-type": type, ...headers },
    body,
  });
}
const signed = (body: string, type?: string, ts?: number) => request(body, slackHeaders(SECRET, body, ts), type);

describe("Slack inbound", () => {
  it("answers url_verification with the challenge, as the immediate answer", async () => {
    const out = await slackPlatform.inbound(signed(fixture("slack-url-verification.json")), settings);
    expect(out).toEqual({
      ok: true,
      events: [],
      immediate: { status: 200, body: { challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" } },
    });
  });

  it("turns a channel mention into a message in the mention's thread, deduplicated by event_id", async () => {
    const out = await slackPlatform.inbound(signed(fixture("slack-app-mention.json")), settings);
    expect(out).toEqual({
      ok: true,
      events: [
        {
          kind: "message",
          eventId: "C123ABC456:1515449522.000016",
          chat: { chatId: "C123ABC456", threadId: "1515449522.000016" },
          user: { id: "U061F7AUR", name: "U061F7AUR" },
          chatType: "group",
          text: "is it everything a river should be?",
          images: [],
        },
      ],
    });
  });

  it("takes a direct message without a thread, and an image it carries", async () => {
    const body = JSON.parse(fixture("slack-message-im.json"));
    body.event.subtype = "file_share";
    body.event.files = [{ mimetype: "image/png", url_private_download: `${standIn.origin}/files/T1/F1/pic.png` }];
    const raw = JSON.stringify(body);
    const out = await slackPlatform.inbound(signed(raw), settings);
    expect(out.ok && out.events[0]).toMatchObject({
      kind: "message",
      eventId: "D024BE91L:1355517523.000005",
      chat: { chatId: "D024BE91L" },
      chatType: "direct",
      text: "Hello hello can you hear me?",
      images: [{ ref: `${standIn.origin}/files/T1/F1/pic.png`, mediaType: "image/png" }],
    });
    expect(out.ok && out.events[0]!.chat.threadId).toBeUndefined();
  });

  it("takes one mention once, whichever of app_mention and message.channels delivers it", async () => {
    const mention = JSON.parse(fixture("slack-app-mention.json"));
    const asMessage = {
      ...mention,
      event_id: "Ev0MESSAGE",
      authorizations: [{ team_id: "T123ABC456", user_id: "U0LAN0Z89", is_bot: true }],
      event: { ...mention.event, type: "message", channel_type: "channel" },
    };
    const a = await slackPlatform.inbound(signed(JSON.stringify(mention)), settings);
    const b = await slackPlatform.inbound(signed(JSON.stringify(asMessage)), settings);
    expect(a.ok && b.ok && a.events[0]!.eventId === b.events[0]!.eventId).toBe(true);
  });

  it("infers a direct message from a D channel when channel_type is absent", async () => {
    const body = JSON.parse(fixture("slack-message-im.json"));
    delete body.event.channel_type;
    const out = await slackPlatform.inbound(signed(JSON.stringify(body)), settings);
    expect(out.ok && out.events[0]).toMatchObject({ chatType: "direct", chat: { chatId: "D024BE91L" } });
  });

  it("ignores bots, edits and channel messages not addressed to the bot", async () => {
    const inChannel = { channel_type: "channel", channel: "C0LAN2Q65" };
    for (const change of [{ bot_id: "B1" }, { subtype: "message_changed" }, inChannel]) {
      const body = JSON.parse(fixture("slack-message-im.json"));
      Object.assign(body.event, change);
      const out = await slackPlatform.inbound(signed(JSON.stringify(body)), settings);
      expect(out).toEqual({ ok: true, events: [] });
    }
  });

  it("turns a block_actions press (form-encoded payload=) into a button event", async () => {
    const raw = new URLSearchParams({ payload: fixture("slack-block-actions.json") }).toString();
    const out = await slackPlatform.inbound(signed(raw, "application/x-www-form-urlencoded"), settings);
    expect(out).toEqual({
      ok: true,
      events: [
        {
          kind: "button",
          eventId: "action:12321423423.333649436676.d8c1bb837935619ccad0f624c448ffb3",
          chat: { chatId: "CBR2V3XEX" },
          user: { id: "UA8RXUSPL", name: "jtorrance" },
          data: "click_me_123",
          messageId: "1548261231.000200",
        },
      ],
    });
  });

  it("keeps a press on a card inside a thread in that thread", async () => {
    const payload = JSON.parse(fixture("slack-block-actions.json"));
    payload.container = { type: "message", message_ts: "1548261231.000200", thread_ts: "1548261000.000100" };
    const raw = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const out = await slackPlatform.inbound(signed(raw, "application/x-www-form-urlencoded"), settings);
    expect(out.ok && out.events[0]!.chat).toEqual({ chatId: "CBR2V3XEX", threadId: "1548261000.000100" });
  });

  it("passes a slash command as written, and /edgeloop as a question", async () => {
    const form = (command: string, text: string) =>
      new URLSearchParams({
        token: "gIkuvaNzQIHg97ATvDxqgjtO",
        team_id: "T0001",
        channel_id: "C2147483705",
        channel_name: "test",
        user_id: "U2147483697",
        user_name: "Steve",
        command,
        text,
        response_url: "https://hooks.slack.com/commands/1234/5678",
        trigger_id: "13345224609.738474920.8088930838d88f008e0",
        api_app_id: "A123456",
      }).toString();
    const device = await slackPlatform.inbound(
      signed(form("/device", "pi-2"), "application/x-www-form-urlencoded"),
      settings,
    );
    expect(device.ok && device.events[0]).toMatchObject({ kind: "message", text: "/device pi-2", chatType: "group" });
    const ask = await slackPlatform.inbound(
      signed(form("/edgeloop", "uptime?"), "application/x-www-form-urlencoded"),
      settings,
    );
    expect(ask.ok && ask.events[0]).toMatchObject({ text: "uptime?", user: { id: "U2147483697", name: "Steve" } });
    // Slack shows a JSON answer to a slash command as a message; an empty 200 is the documented acknowledgement.
    expect(ask.ok && ask.immediate).toEqual({ status: 200, body: "" });
  });

  it("refuses a wrong signature, a changed body, a stale or missing timestamp with 401", async () => {
    const body = fixture("slack-app-mention.json");
    const wrongSecret = request(body, slackHeaders("another-secret", body));
    const changed = request(`${body} `, slackHeaders(SECRET, body));
    const stale = signed(body, undefined, Math.floor(Date.now() / 1000) - 301);
    const noTimestamp = request(body, { "x-slack-signature": slackHeaders(SECRET, body)["x-slack-signature"] });
    for (const req of [wrongSecret, changed, stale, noTimestamp]) {
      const out = await slackPlatform.inbound(req, settings);
      expect(out).toMatchObject({ ok: false, status: 401 });
    }
  });

  it("refuses a signed body that is not Slack's with 400", async () => {
    expect(await slackPlatform.inbound(signed('{"type":"nope"}'), settings)).toMatchObject({ ok: false, status: 400 });
    expect(await slackPlatform.inbound(signed("not json"), settings)).toMatchObject({ ok: false, status: 400 });
  });
});

describe("Slack client against a stand-in Web API", () => {
  it("posts into the thread with a mrkdwn section and Block Kit buttons, then edits it in place", async () => {
    const client = slackPlatform.client(settings);
    const to = { chatId: "C123ABC456", threadId: "1515449522.000016" };
    const sent = await client.send(to, {
      markdown: "Run **bash** on pi-1?",
      buttons: [
        [
          { label: "Approve", data: "ap:1:once", style: "primary" },
          { label: "Deny", data: "ap:1:deny", style: "danger" },
        ],
      ],
    });
    expect(sent.ok).toBe(true);
    const post = standIn.calls.at(-1)!;
    expect(post.path).toBe("/api/chat.postMessage");
    expect(post.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(post.body).toMatchObject({
      channel: "C123ABC456",
      thread_ts: "1515449522.000016",
      text: "Run *bash* on pi-1?",
      blocks: [
        { type: "section", text: { type: "mrkdwn", text: "Run *bash* on pi-1?" } },
        {
          type: "actions",
          elements: [
            { type: "button", text: { type: "plain_text", text: "Approve" }, value: "ap:1:once", style: "primary" },
            { type: "button", text: { type: "plain_text", text: "Deny" }, value: "ap:1:deny", style: "danger" },
          ],
        },
      ],
    });
    const ts = sent.ok ? sent.messageId : "";
    const edited = await client.edit(to, ts, { markdown: "Approved by jtorrance" });
    expect(edited).toEqual({ ok: true, messageId: ts });
    expect(standIn.calls.at(-1)).toMatchObject({
      path: "/api/chat.update",
      body: { channel: "C123ABC456", ts, blocks: [{ type: "section" }] },
    });
  });

  it("reports a 429 as retryable after Retry-After, and Slack's ok:false as not", async () => {
    const client = slackPlatform.client(settings);
    standIn.failNext("chat.postMessage", slackRateLimited(7));
    expect(await client.send({ chatId: "C1" }, { markdown: "hi" })).toMatchObject({
      ok: false,
      retryable: true,
      retryAfterMs: 7000,
    });
    standIn.failNext("chat.postMessage", { status: 200, body: { ok: false, error: "channel_not_found" } });
    expect(await client.send({ chatId: "C1" }, { markdown: "hi" })).toMatchObject({ ok: false, retryable: false });
    standIn.failNext("chat.postMessage", { status: 503, body: "upstream" });
    expect(await client.send({ chatId: "C1" }, { markdown: "hi" })).toMatchObject({ ok: false, retryable: true });
  });

  it("uploads a photo through Slack's external upload flow", async () => {
    const client = slackPlatform.client(settings);
    const before = standIn.calls.length;
    const out = await client.send(
      { chatId: "C1", threadId: "1.2" },
      { markdown: "", image: { bytes: ONE_PIXEL_PNG, mediaType: "image/png", caption: "the graph" } },
    );
    expect(out).toEqual({ ok: true, messageId: "F0TEST" });
    const paths = standIn.calls.slice(before).map((c) => c.path);
    expect(paths).toEqual(["/api/files.getUploadURLExternal", "/upload/F0TEST", "/api/files.completeUploadExternal"]);
    expect(standIn.calls.at(-1)!.body).toMatchObject({
      files: [{ id: "F0TEST" }],
      channel_id: "C1",
      thread_ts: "1.2",
      initial_comment: "the graph",
    });
    expect(Buffer.from(standIn.calls.at(-2)!.body as Buffer)).toEqual(ONE_PIXEL_PNG);
  });

  it("fetches a shared image with the bot token, and refuses a foreign host", async () => {
    const client = slackPlatform.client(settings);
    const got = await client.fetchImage({ ref: `${standIn.origin}/files/T1/F1/pic.png` });
    expect(Buffer.from(got.bytes)).toEqual(ONE_PIXEL_PNG);
    expect(got.mediaType).toBe("image/png");
    expect(standIn.calls.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    await expect(client.fetchImage({ ref: "https://evil.example/steal" })).rejects.toThrow(/not a Slack file URL/);
  });

  it("tells only the presser the outcome (chat.postEphemeral)", async () => {
    const client = slackPlatform.client(settings);
    await client.answerButton(
      {
        kind: "button",
        eventId: "e",
        chat: { chatId: "C1" },
        user: { id: "U9", name: "x" },
        data: "d",
        messageId: "1.1",
      },
      "Only approvers may decide",
    );
    expect(standIn.calls.at(-1)).toMatchObject({
      path: "/api/chat.postEphemeral",
      body: { channel: "C1", user: "U9", text: "Only approvers may decide" },
    });
  });
});

describe("Markdown to Slack mrkdwn", () => {
  it("spreads a text that escaping made longer than a section over several sections", () => {
    const body = messageBody({ markdown: "a<b ".repeat(750) });
    expect(body.blocks).toHaveLength(2);
    expect((body.blocks as { text: { text: string } }[]).map((b) => b.text.text).join("")).toBe(body.text);
  });

  it("converts emphasis, links and headings, escapes <>&, and leaves code alone", () => {
    expect(toMrkdwn("# Status\n**up** and *fine* ~~down~~ see [docs](https://x.example/a?b=1)")).toBe(
      "*Status*\n*up* and _fine_ ~down~ see <https://x.example/a?b=1|docs>",
    );
    expect(toMrkdwn("a < b & c > d")).toBe("a &lt; b &amp; c &gt; d");
    expect(toMrkdwn("run `ls **/*.ts` then\n```\na **b** <c>\n```")).toBe(
      "run `ls **/*.ts` then\n```\na **b** <c>\n```",
    );
    expect(toMrkdwn("> quoted")).toBe("> quoted");
  });
});
