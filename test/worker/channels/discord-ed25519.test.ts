import { describe, expect, it } from "vitest";
import { discordPlatform } from "../../../durable-objects/channels/platforms/discord/index.js";
import { verifyDiscordRequest } from "../../../durable-objects/channels/platforms/discord/verify.js";

/**
 * Discord's interactions are verified with Web Crypto's Ed25519: this runs inside workerd, where the
 * worker runs, to prove the runtime verifies a signature made elsewhere (by Node's crypto) and one
 * made with its own keys, and refuses a forged one.
 */

// Signed by Node's crypto (ed25519) over `timestamp + body`, as Discord signs.
const NODE_PUBLIC_KEY = "73cda7f711b469dcee6b67472e535f31043c44f1e54b7ea047c1bf6fa2ae9be7";
const BODY =
  '{"type":1,"id":"1245551121451000000","application_id":"1245551121451000001","token":"A_UNIQUE_TOKEN","version":1}';
const TIMESTAMP = "1767225600";
const NODE_SIGNATURE =
  "437b1fbd71c9993ff7d3fab14e8f17bb20f2caa30d7df5947c0f0fa893f240bbfe0a05a17c08bb2b2a160faba4bcf7aa8c781db267f1d132c16ff09e25cf6c03";

const headers = (signature: string, timestamp = TIMESTAMP) =>
  new Headers({ "x-signature-ed25519": signature, "x-signature-timestamp": timestamp });
const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

describe("Discord's Ed25519 in workerd", () => {
  it("verifies a signature Node made, and refuses it for another body or timestamp", async () => {
    const now = Number(TIMESTAMP) * 1000;
    expect(await verifyDiscordRequest(headers(NODE_SIGNATURE), BODY, NODE_PUBLIC_KEY, now)).toEqual({ ok: true });
    expect(await verifyDiscordRequest(headers(NODE_SIGNATURE), `${BODY} `, NODE_PUBLIC_KEY, now)).toMatchObject({
      ok: false,
    });
    expect(await verifyDiscordRequest(headers(NODE_SIGNATURE, "1767225601"), BODY, NODE_PUBLIC_KEY, now)).toMatchObject(
      { ok: false },
    );
    const flipped = `${NODE_SIGNATURE.slice(0, -1)}${NODE_SIGNATURE.endsWith("3") ? "4" : "3"}`;
    expect(await verifyDiscordRequest(headers(flipped), BODY, NODE_PUBLIC_KEY, now)).toMatchObject({ ok: false });
  });

  it("answers a PING signed with a key pair made in workerd", async () => {
    const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const publicKey = hex((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = hex(
      await crypto.subtle.sign({ name: "Ed25519" }, pair.privateKey, new TextEncoder().encode(`${timestamp}${BODY}`)),
    );
    const request = new Request("https://edgeloop.test/v1/channels/discord", {
      method: "POST",
      headers: { "x-signature-ed25519": signature, "x-signature-timestamp": timestamp },
      body: BODY,
    });
    const settings = {
      DISCORD_PUBLIC_KEY: publicKey,
      DISCORD_BOT_TOKEN: "t",
      DISCORD_APPLICATION_ID: "1245551121451000001",
      DISCORD_API_BASE_URL: "https://discord.com/api/v10",
    };
    expect(await discordPlatform.inbound(request, settings)).toEqual({
      ok: true,
      events: [],
      immediate: { status: 200, body: { type: 1 } },
    });
  });
});
