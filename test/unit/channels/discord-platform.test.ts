import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toDiscordMarkdown } from "../../../durable-objects/channels/platforms/discord/format.js";
import { discordPlatform } from "../../../durable-objects/channels/platforms/discord/index.js";
import type { DiscordSettings } from "../../../durable-objects/channels/platforms/discord/settings.js";
import { discordKeyPair } from "../../helpers/platform-signers.js";
import { discordRateLimited, startDiscordStandIn } from "../../helpers/platform-standins/discord.js";
import { type MultipartBody, ONE_PIXEL_PNG } from "../../helpers/platform-standins/recording-server.js";

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/channels/${name}`, import.meta.url), "utf8");
const TOKEN = "discord-bot-token";
const keys = discordKeyPair();

let standIn: Awaited<ReturnType<typeof startDiscordStandIn>>;
let settings: DiscordSettings;
beforeAll(async () => {
  standIn = await startDiscordStandIn(TOKEN);
  settings = {
    DISCORD_PUBLIC_KEY: keys.publicKeyHex,
    DISCORD_BOT_TOKEN: TOKEN,
    DISCORD_APPLICATION_ID: "290926444748734465",
    DISCORD_API_BASE_URL: standIn.apiBaseUrl,
  };
});
afterAll(() => standIn.close());

const request = (body: string, headers: Record<string, string>) =>
  new Request("https://edgeloop.example/v1/channels/discord", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
const signed = (body: string, ts?: number) => request(body, keys.headers(body, ts));

describe("Discord inbound", () => {
  it("answers PING with PONG", async () => {
    expect(await discordPlatform.inbound(signed(fixture("discord-ping.json")), settings)).toEqual({
      ok: true,
      events: [],
      immediate: { status: 200, body: { type: 1 } },
    });
  });

  it("turns /ask into a message and completes the interaction at once (type 4)", async () => {
    const out = await discordPlatform.inbound(signed(fixture("discord-command.json")), settings);
    expect(out).toEqual({
      ok: true,
      events: [
        {
          kind: "message",
          eventId: "786008729715212338",
          chat: { chatId: "645027906669510667" },
          user: { id: "53908232506183680", name: "Mason" },
          chatType: "group",
          text: "The Gitrog Monster",
          images: [],
          ackToken: "A_UNIQUE_TOKEN",
        },
      ],
      immediate: {
        status: 200,
        body: { type: 4, data: { content: "> The Gitrog Monster", allowed_mentions: { parse: [] } } },
      },
    });
  });

  it("passes other commands as written, and an attached image", async () => {
    const body = JSON.parse(fixture("discord-command.json"));
    body.data = {
      name: "device",
      type: 1,
      id: "1",
      options: [
        { type: 3, name: "name", value: "pi-2" },
        { type: 11, name: "picture", value: "1100" },
      ],
      resolved: {
        attachments: {
          "1100": {
            id: "1100",
            url: `${standIn.origin}/attachments/1/2/a.png`,
            content_type: "image/png",
            filename: "a.png",
          },
        },
      },
    };
    delete body.guild_id;
    body.user = body.member.user;
    delete body.member;
    const out = await discordPlatform.inbound(signed(JSON.stringify(body)), settings);
    expect(out.ok && out.events[0]).toMatchObject({
      text: "/device pi-2",
      chatType: "direct",
      images: [{ ref: `${standIn.origin}/attachments/1/2/a.png`, mediaType: "image/png" }],
    });
  });

  it("turns a button press into a button event acknowledged by a deferred update (type 6)", async () => {
    const out = await discordPlatform.inbound(signed(fixture("discord-component.json")), settings);
    expect(out).toEqual({
      ok: true,
      events: [
        {
          kind: "button",
          eventId: "846462639134605312",
          chat: { chatId: "345626669114982999" },
          user: { id: "53908232506183680", name: "Mason" },
          data: "click_one",
          messageId: "844397162624450620",
          ackToken: "unique_interaction_token",
        },
      ],
      immediate: { status: 200, body: { type: 6 } },
    });
  });

  it("refuses another key's signature, a changed body and a stale timestamp with 401", async () => {
    const body = fixture("discord-command.json");
    const other = discordKeyPair();
    for (const req of [
      request(body, other.headers(body)),
      request(body.replace("Gitrog", "Gitrob"), keys.headers(body)),
      signed(body, Math.floor(Date.now() / 1000) - 600),
      request(body, { "x-signature-timestamp": String(Math.floor(Date.now() / 1000)), "x-signature-ed25519": "zz" }),
    ]) {
      expect(await discordPlatform.inbound(req, settings)).toMatchObject({ ok: false, status: 401 });
    }
  });
});

describe("Discord client against a stand-in REST API", () => {
  it("posts with buttons as components, edits in place, and removes the buttons with the edit", async () => {
    const client = discordPlatform.client(settings);
    const to = { chatId: "645027906669510667" };
    const buttons = Array.from({ length: 7 }, (_, i) => ({ label: `Option ${i}`, data: `q:1:${i}` }));
    const sent = await client.send(to, { markdown: "Pick one", buttons: [buttons] });
    expect(sent.ok).toBe(true);
    const post = standIn.calls.at(-1)!;
    expect(post).toMatchObject({ method: "POST", path: "/api/v10/channels/645027906669510667/messages" });
    expect(post.headers.authorization).toBe(`Bot ${TOKEN}`);
    const rows = (post.body as { components: { components: { custom_id: string; style: number }[] }[] }).components;
    expect(rows.map((r) => r.components.length)).toEqual([5, 2]);
    expect(rows[0]!.components[0]).toEqual({ type: 2, style: 2, label: "Option 0", custom_id: "q:1:0" });
    const id = sent.ok ? sent.messageId : "";
    expect(await client.edit(to, id, { markdown: "Picked Option 3 (Mason)" })).toEqual({ ok: true, messageId: id });
    expect(standIn.calls.at(-1)).toMatchObject({
      method: "PATCH",
      path: `/api/v10/channels/645027906669510667/messages/${id}`,
      body: { content: "Picked Option 3 (Mason)", components: [] },
    });
  });

  it("reads the rate limit's retry_after from the JSON body", async () => {
    standIn.failNext("/messages", discordRateLimited(1.337));
    expect(await discordPlatform.client(settings).send({ chatId: "1" }, { markdown: "x" })).toMatchObject({
      ok: false,
      retryable: true,
      retryAfterMs: 1337,
    });
    standIn.failNext("/messages", { status: 403, body: { message: "Missing Access", code: 50001 } });
    expect(await discordPlatform.client(settings).send({ chatId: "1" }, { markdown: "x" })).toMatchObject({
      ok: false,
      retryable: false,
      error: "HTTP 403: Missing Access (code 50001)",
    });
  });

  it("sends a photo as multipart with payload_json", async () => {
    const out = await discordPlatform
      .client(settings)
      .send(
        { chatId: "5" },
        { markdown: "", image: { bytes: ONE_PIXEL_PNG, mediaType: "image/png", caption: "graph" } },
      );
    expect(out.ok).toBe(true);
    const body = standIn.calls.at(-1)!.body as MultipartBody;
    expect(JSON.parse(body.fields.payload_json!)).toMatchObject({
      content: "graph",
      attachments: [{ id: 0, filename: "image.png" }],
    });
    expect(body.files["files[0]"]!.bytes).toEqual(ONE_PIXEL_PNG);
  });

  it("shows typing, answers a press ephemerally on its interaction, and fetches attachments", async () => {
    const client = discordPlatform.client(settings);
    await client.typing({ chatId: "5" });
    expect(standIn.calls.at(-1)).toMatchObject({ method: "POST", path: "/api/v10/channels/5/typing" });
    standIn.answered("tok");
    await client.answerButton(
      {
        kind: "button",
        eventId: "1",
        chat: { chatId: "5" },
        user: { id: "2", name: "x" },
        data: "d",
        messageId: "3",
        ackToken: "tok",
      },
      "Already decided",
    );
    expect(standIn.calls.at(-1)).toMatchObject({
      path: "/api/v10/webhooks/290926444748734465/tok",
      body: { content: "Already decided", flags: 64 },
    });
    const got = await client.fetchImage({ ref: `${standIn.origin}/attachments/1/2/a.png` });
    expect(Buffer.from(got.bytes)).toEqual(ONE_PIXEL_PNG);
    await expect(client.fetchImage({ ref: "http://169.254.169.254/latest" })).rejects.toThrow();
  });
});

describe("Discord follow-ups on an interaction", () => {
  const press = (ackToken: string) => ({
    kind: "button" as const,
    eventId: "1",
    chat: { chatId: "5" },
    user: { id: "2", name: "x" },
    data: "d",
    messageId: "3",
    ackToken,
  });
  const followUps = (token: string) =>
    standIn.calls.filter((c) => c.path === `/api/v10/webhooks/290926444748734465/${token}`);

  it("waits for Discord to see the press answered before its follow-up lands", async () => {
    const client = discordPlatform.client(settings);
    // The webhook's {"type":6} reaches Discord a moment after the thread has the press.
    setTimeout(() => standIn.answered("late"), 300);
    await client.answerButton(press("late"), "Already decided");
    const calls = followUps("late");
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.slice(0, -1).map((c) => c.answer)).toEqual(
      calls.slice(0, -1).map(() => ({ message: "Unknown interaction", code: 10015 })),
    );
    expect(calls.at(-1)).toMatchObject({
      body: { content: "Already decided", flags: 64 },
      answer: { id: expect.any(String) },
    });
  });

  it("gives up on an interaction Discord never saw answered, within its 3 s", async () => {
    const started = Date.now();
    await discordPlatform.client(settings).answerButton(press("never"), "Done.");
    expect(Date.now() - started).toBeLessThan(4500);
    expect(followUps("never").every((c) => (c.answer as { code?: number }).code === 10015)).toBe(true);
  });

  it("sends a message meant for one user as an ephemeral follow-up on their interaction", async () => {
    standIn.answered("cmd");
    const out = await discordPlatform
      .client(settings)
      .send(
        { chatId: "5" },
        { markdown: "Your pairing code is K7QM-2XPA.", onlyFor: { userId: "2", ackToken: "cmd" } },
      );
    expect(out.ok).toBe(true);
    expect(followUps("cmd").at(-1)!.body).toEqual({
      content: "Your pairing code is K7QM-2XPA.",
      flags: 64,
      allowed_mentions: { parse: [] },
    });
  });
});

describe("Markdown to Discord", () => {
  it("keeps Discord's own Markdown, turns deep headings bold and image links into URLs", () => {
    expect(toDiscordMarkdown("## Up\n#### Detail\n![plot](https://x.example/p.png) [docs](https://d.example)")).toBe(
      "## Up\n**Detail**\nhttps://x.example/p.png [docs](https://d.example)",
    );
  });
});
