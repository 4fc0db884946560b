import { createHmac, generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifyDiscordRequest } from "../../../durable-objects/channels/platforms/discord/verify.js";
import { SLACK_TOLERANCE_SECONDS } from "../../../durable-objects/channels/platforms/slack/settings.js";
import { verifySlackRequest } from "../../../durable-objects/channels/platforms/slack/verify.js";
import {
  answerVerifyHandshake,
  verifyMetaSignature,
} from "../../../durable-objects/channels/platforms/whatsapp/verify.js";

/**
 * Each chat platform's own request signature, checked directly in Node (the mutation run's tests): the
 * platform routes' workerd tests (test/worker/channels/) reach these only through a whole request. Every
 * signature here is made with node:crypto as the platform documents it, never with the code under test.
 */

const NOW_S = 1_767_225_600;
const NOW = NOW_S * 1000;
const hmacHex = (secret: string, content: string) => createHmac("sha256", secret).update(content).digest("hex");

describe("Slack's request signing", () => {
  const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
  const BODY = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&command=%2Fweather";
  const signed = (ts: string, body = BODY, secret = SECRET) => `v0=${hmacHex(secret, `v0:${ts}:${body}`)}`;
  const headers = (ts: string | null, signature: string | null) => {
    const h = new Headers();
    if (ts !== null) h.set("x-slack-request-timestamp", ts);
    if (signature !== null) h.set("x-slack-signature", signature);
    return h;
  };

  it("accepts `v0=` HMAC of `v0:{timestamp}:{body}` within five minutes either way", async () => {
    const ts = String(NOW_S);
    expect(await verifySlackRequest(headers(ts, signed(ts)), BODY, SECRET, NOW)).toEqual({ ok: true });
    expect(await verifySlackRequest(headers(ts, ` ${signed(ts)} `), BODY, SECRET, NOW)).toEqual({ ok: true });
    for (const skew of [SLACK_TOLERANCE_SECONDS, -SLACK_TOLERANCE_SECONDS]) {
      const at = String(NOW_S + skew);
      expect(await verifySlackRequest(headers(at, signed(at)), BODY, SECRET, NOW)).toEqual({ ok: true });
    }
  });

  it("refuses a stale or missing timestamp before looking at the signature", async () => {
    const old = String(NOW_S - SLACK_TOLERANCE_SECONDS - 1);
    expect(await verifySlackRequest(headers(old, signed(old)), BODY, SECRET, NOW)).toEqual({
      ok: false,
      reason: `X-Slack-Request-Timestamp: timestamp outside the ${SLACK_TOLERANCE_SECONDS}s tolerance`,
    });
    expect(await verifySlackRequest(headers(null, signed(String(NOW_S))), BODY, SECRET, NOW)).toEqual({
      ok: false,
      reason: "X-Slack-Request-Timestamp: timestamp missing or not unix seconds",
    });
  });

  it("refuses a signature of another scheme, body, timestamp or secret", async () => {
    const ts = String(NOW_S);
    const notV0 = { ok: false, reason: "X-Slack-Signature is not v0=<hex>" };
    const mismatch = { ok: false, reason: "X-Slack-Signature does not match" };
    expect(await verifySlackRequest(headers(ts, null), BODY, SECRET, NOW)).toEqual(notV0);
    expect(await verifySlackRequest(headers(ts, signed(ts).replace("v0=", "v1=")), BODY, SECRET, NOW)).toEqual(notV0);
    expect(await verifySlackRequest(headers(ts, signed(ts).slice(3)), BODY, SECRET, NOW)).toEqual(notV0);
    // The prefix is cut exactly: `v0=` before a signature shifted by one character does not match.
    expect(await verifySlackRequest(headers(ts, `v0=${signed(ts)}`), BODY, SECRET, NOW)).toEqual(mismatch);
    expect(await verifySlackRequest(headers(ts, signed(ts, `${BODY}&x=1`)), BODY, SECRET, NOW)).toEqual(mismatch);
    expect(await verifySlackRequest(headers(ts, signed(String(NOW_S - 1))), BODY, SECRET, NOW)).toEqual(mismatch);
    expect(await verifySlackRequest(headers(ts, signed(ts, BODY, "other")), BODY, SECRET, NOW)).toEqual(mismatch);
    // Signed without the `v0:` version in the content, as a careless sender might.
    expect(await verifySlackRequest(headers(ts, `v0=${hmacHex(SECRET, `${ts}:${BODY}`)}`), BODY, SECRET, NOW)).toEqual(
      mismatch,
    );
  });
});

describe("Meta's (WhatsApp's) webhook signature", () => {
  const APP_SECRET = "meta-app-secret";
  const BODY = '{"object":"whatsapp_business_account","entry":[]}';
  const headers = (value: string | null) =>
    value === null ? new Headers() : new Headers({ "x-hub-signature-256": value });
  const good = `sha256=${hmacHex(APP_SECRET, BODY)}`;

  it("accepts `sha256=` HMAC of the raw body under the app secret", async () => {
    expect(await verifyMetaSignature(headers(good), BODY, APP_SECRET)).toEqual({ ok: true });
    expect(await verifyMetaSignature(headers(` ${good}\t`), BODY, APP_SECRET)).toEqual({ ok: true });
  });

  it("refuses another scheme, another body or secret, and a shifted prefix", async () => {
    const notSha = { ok: false, reason: "X-Hub-Signature-256 is not sha256=<hex>" };
    const mismatch = { ok: false, reason: "X-Hub-Signature-256 does not match" };
    expect(await verifyMetaSignature(headers(null), BODY, APP_SECRET)).toEqual(notSha);
    expect(await verifyMetaSignature(headers(good.replace("sha256=", "sha1=")), BODY, APP_SECRET)).toEqual(notSha);
    expect(await verifyMetaSignature(headers(good.slice(7)), BODY, APP_SECRET)).toEqual(notSha);
    expect(await verifyMetaSignature(headers(`sha256=${good}`), BODY, APP_SECRET)).toEqual(mismatch);
    expect(await verifyMetaSignature(headers(good), `${BODY}\n`, APP_SECRET)).toEqual(mismatch);
    expect(await verifyMetaSignature(headers(good), BODY, "other")).toEqual(mismatch);
  });

  it("answers the subscribe handshake with the challenge only for the right verify token", async () => {
    const url = (q: Record<string, string>) => new URL(`https://x.example/wa?${new URLSearchParams(q)}`);
    const ok = { "hub.mode": "subscribe", "hub.verify_token": "tok", "hub.challenge": "1158201444" };
    expect(await answerVerifyHandshake(url(ok), "tok")).toEqual({
      ok: true,
      events: [],
      immediate: { status: 200, body: "1158201444" },
    });
    // An empty challenge is still a challenge: it goes back as it came.
    expect(await answerVerifyHandshake(url({ ...ok, "hub.challenge": "" }), "tok")).toMatchObject({
      ok: true,
      immediate: { body: "" },
    });
    const notHandshake = { ok: false, status: 400, reason: "not a subscribe handshake" };
    expect(await answerVerifyHandshake(url({ ...ok, "hub.mode": "unsubscribe" }), "tok")).toEqual(notHandshake);
    const { "hub.challenge": _, ...noChallenge } = ok;
    expect(await answerVerifyHandshake(url(noChallenge), "tok")).toEqual(notHandshake);
    const wrong = { ok: false, status: 403, reason: "hub.verify_token does not match" };
    expect(await answerVerifyHandshake(url({ ...ok, "hub.verify_token": "tok2" }), "tok")).toEqual(wrong);
    const { "hub.verify_token": __, ...noToken } = ok;
    expect(await answerVerifyHandshake(url(noToken), "tok")).toEqual(wrong);
    // A missing token is no token at all, not the text "null" nor an empty one.
    expect(await answerVerifyHandshake(url(noToken), "null")).toEqual(wrong);
  });
});

describe("Discord's Ed25519 interaction signature", () => {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  // The raw 32-byte key is the tail of its SPKI DER encoding.
  const PUBLIC_HEX = publicKey.export({ format: "der", type: "spki" }).subarray(-32).toString("hex");
  const BODY = '{"type":1}';
  const signed = (ts: string, body = BODY) => sign(null, Buffer.from(`${ts}${body}`), privateKey).toString("hex");
  const headers = (ts: string | null, signature: string | null) => {
    const h = new Headers();
    if (ts !== null) h.set("x-signature-timestamp", ts);
    if (signature !== null) h.set("x-signature-ed25519", signature);
    return h;
  };
  const ts = String(NOW_S);

  it("accepts the hex signature of `timestamp + body`, in either case and with spaces around it", async () => {
    expect(await verifyDiscordRequest(headers(ts, signed(ts)), BODY, PUBLIC_HEX, NOW)).toEqual({ ok: true });
    expect(await verifyDiscordRequest(headers(ts, ` ${signed(ts).toUpperCase()} `), BODY, PUBLIC_HEX, NOW)).toEqual({
      ok: true,
    });
    expect(await verifyDiscordRequest(headers(ts, signed(ts)), BODY, PUBLIC_HEX.toUpperCase(), NOW)).toEqual({
      ok: true,
    });
  });

  it("refuses a stale timestamp, and a signature for another body, timestamp or key", async () => {
    const old = String(NOW_S - 301);
    expect(await verifyDiscordRequest(headers(old, signed(old)), BODY, PUBLIC_HEX, NOW)).toEqual({
      ok: false,
      reason: "X-Signature-Timestamp: timestamp outside the 300s tolerance",
    });
    const mismatch = { ok: false, reason: "X-Signature-Ed25519 does not match" };
    expect(await verifyDiscordRequest(headers(ts, signed(ts, `${BODY} `)), BODY, PUBLIC_HEX, NOW)).toEqual(mismatch);
    expect(await verifyDiscordRequest(headers(ts, signed(String(NOW_S - 1))), BODY, PUBLIC_HEX, NOW)).toEqual(mismatch);
    const other = generateKeyPairSync("ed25519").publicKey.export({ format: "der", type: "spki" }).subarray(-32);
    expect(await verifyDiscordRequest(headers(ts, signed(ts)), BODY, other.toString("hex"), NOW)).toEqual(mismatch);
  });

  it("refuses a signature that is not exactly 64 bytes of hex", async () => {
    const shape = { ok: false, reason: "X-Signature-Ed25519 is not 64 hex bytes" };
    const sig = signed(ts);
    for (const bad of [
      null,
      "",
      sig.slice(0, -2),
      `${sig}00`,
      `${sig.slice(0, -1)}`,
      `${sig.slice(0, -1)}g`,
      `x${sig}`,
    ])
      expect(await verifyDiscordRequest(headers(ts, bad), BODY, PUBLIC_HEX, NOW), String(bad)).toEqual(shape);
    // Junk at either end of an otherwise valid signature.
    expect(await verifyDiscordRequest(headers(ts, `${sig}zz`), BODY, PUBLIC_HEX, NOW)).toEqual(shape);
    expect(await verifyDiscordRequest(headers(ts, `zz${sig}`), BODY, PUBLIC_HEX, NOW)).toEqual(shape);
  });

  it("refuses a public key that is not hex", async () => {
    const notHex = { ok: false, reason: "DISCORD_PUBLIC_KEY is not hex" };
    expect(await verifyDiscordRequest(headers(ts, signed(ts)), BODY, `${PUBLIC_HEX}z`, NOW)).toEqual(notHex);
    expect(await verifyDiscordRequest(headers(ts, signed(ts)), BODY, `z${PUBLIC_HEX}`, NOW)).toEqual(notHex);
    expect(await verifyDiscordRequest(headers(ts, signed(ts)), BODY, PUBLIC_HEX.slice(1), NOW)).toEqual(notHex);
    expect(await verifyDiscordRequest(headers(ts, signed(ts)), BODY, "", NOW)).toEqual(notHex);
  });
});
