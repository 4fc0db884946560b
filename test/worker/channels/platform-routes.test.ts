/**
 * Discord, WhatsApp and Slack through the real worker's `/v1/channels/:platform` route and the chat
 * thread objects: each platform's own verification, its handshake (Discord's PING, Meta's GET
 * verify), its acknowledgement (Slack's empty 200 for a slash command) and one message handed on once. Bodies are the platforms' documented payloads
 * (test/fixtures/channels/), signed here with Web Crypto exactly as the platform signs them.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { chatThreadFor } from "../../../durable-objects/addresses.js";
import discordCommand from "../../fixtures/channels/discord-command.json?raw";
import discordPing from "../../fixtures/channels/discord-ping.json?raw";
import whatsappStatus from "../../fixtures/channels/whatsapp-status.json?raw";
import whatsappText from "../../fixtures/channels/whatsapp-text.json?raw";
import { call } from "../support/front-door.js";

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
const utf8 = (s: string) => new TextEncoder().encode(s);
const unique = () => `${Date.now()}${Math.floor(Math.random() * 1e6)}`;

/** The events a chat thread's object took in, by their platform ids. */
async function inboxOf(threadKey: string): Promise<string[]> {
  return runInDurableObject(chatThreadFor(env, threadKey) as never, async (_instance, state: DurableObjectState) =>
    state.storage.sql
      .exec<{ event_id: string }>("SELECT event_id FROM inbox")
      .toArray()
      .map((r) => r.event_id),
  );
}

describe("Discord interactions on /v1/channels/discord", () => {
  const discord = async () => {
    const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const publicKey = hex((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer);
    const vars = {
      DISCORD_PUBLIC_KEY: publicKey,
      DISCORD_BOT_TOKEN: "discord-bot-token",
      DISCORD_APPLICATION_ID: "1245551121451000001",
      DISCORD_API_BASE_URL: "http://127.0.0.1:9/api/v10",
    };
    const post = async (body: string, sign = true) => {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = hex(await crypto.subtle.sign("Ed25519", pair.privateKey, utf8(`${timestamp}${body}`)));
      const headers = {
        "content-type": "application/json",
        "x-signature-timestamp": timestamp,
        "x-signature-ed25519": sign ? signature : "00".repeat(64),
      };
      return call("/v1/channels/discord", { method: "POST", headers, body }, vars);
    };
    return { post, vars };
  };

  it("answers a signed PING with PONG and refuses an unsigned one", async () => {
    const { post } = await discord();
    const pong = await post(discordPing);
    expect(pong.status).toBe(200);
    expect(await pong.json()).toEqual({ type: 1 });
    const forged = await post(discordPing, false);
    expect(forged.status).toBe(401);
    expect(forged.headers.get("content-type")).toContain("application/problem+json");
  });

  it("answers a slash command at once and hands it to its channel's thread once", async () => {
    const { post } = await discord();
    const channelId = unique();
    const body = JSON.stringify({ ...JSON.parse(discordCommand), id: unique(), channel_id: channelId });
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ type: 4, data: { content: "> The Gitrog Monster" } });
    await post(body);
    expect(await inboxOf(`discord:${channelId}`)).toEqual([`message:${JSON.parse(body).id}`]);
  });

  it("is off (404) until its settings are set, and names a bad one when they are", async () => {
    const { vars } = await discord();
    expect((await call("/v1/channels/discord", { method: "POST", body: discordPing })).status).toBe(404);
    const bad = await call(
      "/v1/channels/discord",
      { method: "POST", body: discordPing },
      { ...vars, DISCORD_PUBLIC_KEY: "not-hex" },
    );
    expect(bad.status).toBe(500);
    expect(await bad.text()).toContain("DISCORD_PUBLIC_KEY");
  });
});

describe("WhatsApp Cloud API on /v1/channels/whatsapp", () => {
  const APP_SECRET = "meta-app-secret";
  const vars = {
    WHATSAPP_APP_SECRET: APP_SECRET,
    WHATSAPP_VERIFY_TOKEN: "my-verify-token",
    WHATSAPP_ACCESS_TOKEN: "EAAJB-test-token",
    WHATSAPP_PHONE_NUMBER_ID: "106540352242922",
    WHATSAPP_API_BASE_URL: "http://127.0.0.1:9",
  };
  const signature = async (body: string) => {
    const key = await crypto.subtle.importKey("raw", utf8(APP_SECRET), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    return `sha256=${hex(await crypto.subtle.sign("HMAC", key, utf8(body)))}`;
  };
  const post = async (body: string, sig?: string) =>
    call(
      "/v1/channels/whatsapp",
      {
        method: "POST",
        headers: { "content-type": "application/json", "x-hub-signature-256": sig ?? (await signature(body)) },
        body,
      },
      vars,
    );

  it("answers Meta's GET verify handshake with the challenge as plain text, for the right token only", async () => {
    const get = (token: string) =>
      call(`/v1/channels/whatsapp?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=${token}`, {}, vars);
    const ok = await get("my-verify-token");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await ok.text()).toBe("1158201444");
    expect((await get("a-guess")).status).toBe(403);
  });

  it("refuses a POST whose X-Hub-Signature-256 is not the app secret's", async () => {
    const res = await post(whatsappText, `sha256=${"0".repeat(64)}`);
    expect(res.status).toBe(401);
  });

  it("takes a signed text message once, however often Meta delivers it, and acknowledges statuses", async () => {
    const from = `1650${unique()}`.slice(0, 15);
    const wamid = `wamid.${unique()}`;
    const body = whatsappText.replaceAll("16505551234", from).replace(/wamid\.[A-Za-z0-9=]+/, wamid);
    expect(await (await post(body)).json()).toEqual({ ok: true, taken: 1, repeated: 0 });
    expect(await (await post(body)).json()).toEqual({ ok: true, taken: 0, repeated: 1 });
    expect(await inboxOf(`whatsapp:${from}`)).toEqual([`message:${wamid}`]);
    expect(await (await post(whatsappStatus)).json()).toEqual({ ok: true, taken: 0, repeated: 0 });
  });
});

describe("Slack slash commands on /v1/channels/slack", () => {
  const SIGNING_SECRET = "slack-signing-secret";
  const vars = {
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_BOT_TOKEN: "xoxb-test",
    SLACK_API_BASE_URL: "http://127.0.0.1:9",
  };

  it("acknowledges a slash command with an empty 200, which Slack shows as nothing", async () => {
    const channel = `C${unique()}`.slice(0, 12);
    const body = new URLSearchParams({
      team_id: "T0001",
      channel_id: channel,
      channel_name: "test",
      user_id: "U2147483697",
      user_name: "Steve",
      command: "/edgeloop",
      text: "uptime?",
      response_url: "https://hooks.slack.com/commands/1234/5678",
      trigger_id: `${unique()}.738474920.8088930838d88f008e0`,
      api_app_id: "A123456",
    }).toString();
    // Slack's v0 signature: HMAC-SHA256 of `v0:{timestamp}:{body}` with the signing secret.
    const timestamp = String(Math.floor(Date.now() / 1000));
    const key = await crypto.subtle.importKey("raw", utf8(SIGNING_SECRET), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    const signature = `v0=${hex(await crypto.subtle.sign("HMAC", key, utf8(`v0:${timestamp}:${body}`)))}`;
    const res = await call(
      "/v1/channels/slack",
      {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "x-slack-request-timestamp": timestamp,
          "x-slack-signature": signature,
        },
        body,
      },
      vars,
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
    expect(await inboxOf(`slack:${channel}`)).toHaveLength(1);
  });
});
