import { createHmac } from "node:crypto";
import {
  bytesToBase64,
  checkTimestamp,
  secretKeyBytes,
  signStandardWebhook,
  standardSignedContent,
  toHex,
  verifyHmacWebhook,
  verifyStandardWebhook,
} from "@edgeloop/protocol/webhook-signatures";
import { describe, expect, it } from "vitest";

/**
 * Inbound webhook verification, both schemes, against signatures node:crypto makes: the shape each header
 * must have, the replay window, key rotation, and the exact reason a request is refused (the reason is what
 * a sender's operator reads in the 401).
 */
const NOW_S = 1_767_225_600;
const opts = { nowMs: NOW_S * 1000, toleranceSeconds: 300 };
const ts = String(NOW_S);
const BODY = '{"event":"deploy"}';
const hmacHex = (key: string | Buffer, content: string) => createHmac("sha256", key).update(content).digest("hex");
const hmacB64 = (key: string | Buffer, content: string) => createHmac("sha256", key).update(content).digest("base64");

describe("a webhook's timestamp", () => {
  it("is unix seconds within the tolerance either way, the bounds included", () => {
    expect(checkTimestamp(ts, opts.nowMs, 300)).toEqual({ ok: true });
    expect(checkTimestamp(String(NOW_S + 300), opts.nowMs, 300)).toEqual({ ok: true });
    expect(checkTimestamp(String(NOW_S - 300), opts.nowMs, 300)).toEqual({ ok: true });
    const outside = { ok: false, reason: "timestamp outside the 300s tolerance" };
    expect(checkTimestamp(String(NOW_S + 301), opts.nowMs, 300)).toEqual(outside);
    expect(checkTimestamp(String(NOW_S - 301), opts.nowMs, 300)).toEqual(outside);
    expect(checkTimestamp("0", opts.nowMs, 300)).toEqual(outside);
  });

  it("is refused, whatever it is, when the clock or the tolerance is not a number", () => {
    // `skew > NaN` is false: a check written that way would take any timestamp, the oldest replay included.
    for (const t of [ts, "0", String(NOW_S + 10_000)]) {
      expect(checkTimestamp(t, Number.NaN, 300), t).toEqual({
        ok: false,
        reason: "timestamp outside the 300s tolerance",
      });
      expect(checkTimestamp(t, opts.nowMs, Number.NaN), t).toEqual({
        ok: false,
        reason: "timestamp outside the NaNs tolerance",
      });
    }
  });

  it("is refused when missing or not a plain number, even with junk around a fresh one", () => {
    const bad = { ok: false, reason: "timestamp missing or not unix seconds" };
    for (const t of [null, undefined, "", "abc", `x${ts}`, `${ts}x`, `${ts}.5`, `-${ts}`, ` ${ts}`, `${ts}\n`, "1e9"])
      expect(checkTimestamp(t, opts.nowMs, 300), JSON.stringify(t)).toEqual(bad);
    expect(checkTimestamp("1234567890123", opts.nowMs, 300)).toEqual(bad);
  });
});

describe("secrets", () => {
  it("written whsec_<base64> are the decoded key; any other, or bad base64 after whsec_, are UTF-8 bytes", () => {
    expect([...secretKeyBytes(`whsec_${Buffer.from([1, 2, 255]).toString("base64")}`)]).toEqual([1, 2, 255]);
    expect([...secretKeyBytes("ké")]).toEqual([...Buffer.from("ké")]);
    expect([...secretKeyBytes("whsec_***")]).toEqual([...Buffer.from("whsec_***")]);
  });

  it("encode as hex and base64 byte by byte", () => {
    expect(toHex(new Uint8Array([0, 15, 16, 255]))).toBe("000f10ff");
    expect(bytesToBase64(new Uint8Array([0, 251, 255]))).toBe(Buffer.from([0, 251, 255]).toString("base64"));
  });
});

describe("the hmac scheme (X-Webhook-Signature)", () => {
  const good = `sha256=${hmacHex("k", `${ts}.${BODY}`)}`;

  it("accepts the signature of `{timestamp}.{body}`, spaces around it and upper-case digits too", async () => {
    expect(await verifyHmacWebhook(["k"], good, ts, BODY, opts)).toEqual({ ok: true, secretIndex: 0 });
    expect(await verifyHmacWebhook(["k"], ` ${good} `, ts, BODY, opts)).toEqual({ ok: true, secretIndex: 0 });
    const upper = `sha256=${good.slice(7).toUpperCase()}`;
    expect(await verifyHmacWebhook(["k"], upper, ts, BODY, opts)).toEqual({ ok: true, secretIndex: 0 });
  });

  it("says which secret of a rotation matched: the first one that does", async () => {
    expect(await verifyHmacWebhook(["old", "k"], good, ts, BODY, opts)).toEqual({ ok: true, secretIndex: 1 });
    const sameKey = `whsec_${Buffer.from("k").toString("base64")}`;
    expect(await verifyHmacWebhook(["k", sameKey], good, ts, BODY, opts)).toEqual({ ok: true, secretIndex: 0 });
    expect(await verifyHmacWebhook(["x", "k", "k"], good, ts, BODY, opts)).toEqual({ ok: true, secretIndex: 1 });
  });

  it("refuses a stale timestamp even with a valid signature for it", async () => {
    const old = String(NOW_S - 301);
    const signed = `sha256=${hmacHex("k", `${old}.${BODY}`)}`;
    expect(await verifyHmacWebhook(["k"], signed, old, BODY, opts)).toEqual({
      ok: false,
      reason: "timestamp outside the 300s tolerance",
    });
  });

  it("refuses a header that is not exactly sha256=<64 hex digits>", async () => {
    const shape = { ok: false, reason: "X-Webhook-Signature is not sha256=<64 hex digits>" };
    for (const h of [
      null,
      undefined,
      "",
      good.slice(7),
      `x${good}`,
      `${good}0`,
      `${good}x`,
      good.slice(0, -1),
      `sha1=${good.slice(7)}`,
    ])
      expect(await verifyHmacWebhook(["k"], h, ts, BODY, opts), JSON.stringify(h)).toEqual(shape);
  });

  it("refuses another body, timestamp or secret", async () => {
    const no = { ok: false, reason: "signature does not match" };
    expect(await verifyHmacWebhook(["k"], good, ts, `${BODY} `, opts)).toEqual(no);
    expect(await verifyHmacWebhook(["k"], good, String(NOW_S + 1), BODY, opts)).toEqual(no);
    expect(await verifyHmacWebhook(["other"], good, ts, BODY, opts)).toEqual(no);
    expect(await verifyHmacWebhook([], good, ts, BODY, opts)).toEqual(no);
  });
});

describe("Standard Webhooks (webhook-signature)", () => {
  const id = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W";
  const key = Buffer.from("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "base64");
  const secret = `whsec_${key.toString("base64")}`;
  const sig = hmacB64(key, `${id}.${ts}.${BODY}`);

  it("signs and verifies `{id}.{timestamp}.{body}` as v1,<base64>", async () => {
    expect(standardSignedContent("a", "1", "b")).toBe("a.1.b");
    expect(await signStandardWebhook(secret, id, ts, BODY)).toBe(`v1,${sig}`);
    expect(await verifyStandardWebhook([secret], id, ts, `v1,${sig}`, BODY, opts)).toEqual({
      ok: true,
      secretIndex: 0,
    });
  });

  it("finds the v1 signature among several, skipping other versions, malformed parts and extra spaces", async () => {
    const header = `v1a,${sig} v2,${sig} nocomma v1,*** v1,${hmacB64(key, "other")}  v1,${sig}`;
    expect(await verifyStandardWebhook([secret], id, ts, header, BODY, opts)).toEqual({ ok: true, secretIndex: 0 });
    expect(await verifyStandardWebhook(["old", secret], id, ts, `v1,${sig}`, BODY, opts)).toEqual({
      ok: true,
      secretIndex: 1,
    });
  });

  it("refuses a valid signature under another version's label", async () => {
    const none = { ok: false, reason: "webhook-signature has no v1,<base64> signature" };
    for (const h of [`v1a,${sig}`, `v2,${sig}`, `,${sig}`, `V1,${sig}`, "v1a", sig, "", null])
      expect(await verifyStandardWebhook([secret], id, ts, h, BODY, opts), String(h)).toEqual(none);
  });

  it("refuses without an id, with a stale timestamp, or for another body", async () => {
    expect(await verifyStandardWebhook([secret], "", ts, `v1,${sig}`, BODY, opts)).toEqual({
      ok: false,
      reason: "webhook-id missing",
    });
    expect(await verifyStandardWebhook([secret], null, ts, `v1,${sig}`, BODY, opts)).toEqual({
      ok: false,
      reason: "webhook-id missing",
    });
    expect(await verifyStandardWebhook([secret], id, String(NOW_S - 301), `v1,${sig}`, BODY, opts)).toEqual({
      ok: false,
      reason: "timestamp outside the 300s tolerance",
    });
    expect(await verifyStandardWebhook([secret], id, ts, `v1,${sig}`, `${BODY} `, opts)).toEqual({
      ok: false,
      reason: "signature does not match",
    });
    expect(await verifyStandardWebhook([secret], `${id}x`, ts, `v1,${sig}`, BODY, opts)).toEqual({
      ok: false,
      reason: "signature does not match",
    });
  });
});
