import { createHash, createHmac } from "node:crypto";
import { signStandardWebhook } from "@edgeloop/protocol/webhook-signatures";
import { describe, expect, it } from "vitest";
import type { Hook } from "../../../worker/hooks/hook-settings.js";
import { type HookRequest, verifyHook } from "../../../worker/hooks/verify-hook.js";

/**
 * Each named hook's verification, refusal by refusal: the reason a sender's operator reads, and the
 * delivery id that deduplicates a retry. Signatures are made with node:crypto.
 */
const NOW_S = 1_767_225_600;
const hook = (over: Partial<Hook>): Hook => ({
  verify: "github",
  agent: "pi-1",
  template: "x",
  token_header: "authorization",
  append_payload: false,
  ...over,
});
const req = (headers: Record<string, string>, rawBody: string): HookRequest => ({
  header: (n) => headers[n.toLowerCase()],
  rawBody,
  nowMs: NOW_S * 1000,
  toleranceSeconds: 300,
});
const hmacHex = (key: string, content: string) => createHmac("sha256", key).update(content).digest("hex");
const bodyKey = (body: string) => `body:${createHash("sha256").update(body).digest("hex")}`;
const BODY = '{"action":"opened"}';

describe("a github hook", () => {
  const sig = `sha256=${hmacHex("s", BODY)}`;

  it("takes X-Hub-Signature-256 with spaces around it; the delivery is the id, the event is kept", async () => {
    expect(
      await verifyHook(hook({}), ["s"], req({ "x-hub-signature-256": ` ${sig} `, "x-github-delivery": "d1" }, BODY)),
    ).toEqual({ ok: true, deliveryId: "d1" });
  });

  it("names what is wrong: the scheme, the signature, the delivery id", async () => {
    const notSha = { ok: false, reason: "X-Hub-Signature-256 is not sha256=<hex>" };
    expect(await verifyHook(hook({}), ["s"], req({ "x-github-delivery": "d1" }, BODY))).toEqual(notSha);
    expect(
      await verifyHook(hook({}), ["s"], req({ "x-hub-signature-256": sig.slice(7), "x-github-delivery": "d1" }, BODY)),
    ).toEqual(notSha);
    expect(
      await verifyHook(hook({}), ["x"], req({ "x-hub-signature-256": sig, "x-github-delivery": "d1" }, BODY)),
    ).toEqual({
      ok: false,
      reason: "X-Hub-Signature-256 does not match",
    });
    expect(await verifyHook(hook({}), ["s"], req({ "x-hub-signature-256": sig }, BODY))).toEqual({
      ok: false,
      reason: "X-GitHub-Delivery missing",
    });
  });
});

describe("a Standard Webhooks hook", () => {
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const ts = String(NOW_S);

  it("refuses a stale timestamp, with the header it came in", async () => {
    const old = String(NOW_S - 301);
    const headers = {
      "webhook-id": "m1",
      "webhook-timestamp": old,
      "webhook-signature": await signStandardWebhook(secret, "m1", old, BODY),
    };
    expect(await verifyHook(hook({ verify: "standard" }), [secret], req(headers, BODY))).toEqual({
      ok: false,
      reason: "webhook-signature: timestamp outside the 300s tolerance",
    });
    const fresh = {
      ...headers,
      "webhook-timestamp": ts,
      "webhook-signature": await signStandardWebhook(secret, "m1", ts, BODY),
    };
    expect(await verifyHook(hook({ verify: "standard" }), [secret], req(fresh, BODY))).toEqual({
      ok: true,
      deliveryId: "m1",
    });
  });
});

describe("a grafana hook", () => {
  const grafana = hook({ verify: "grafana" });
  const ts = String(NOW_S);

  it("takes the signature with spaces around it, and the body as the delivery", async () => {
    const headers = {
      "x-grafana-alerting-signature": ` ${hmacHex("g", `${ts}:${BODY}`)}\t`,
      "x-grafana-alerting-timestamp": ts,
    };
    expect(await verifyHook(grafana, ["g"], req(headers, BODY))).toEqual({ ok: true, deliveryId: bodyKey(BODY) });
  });

  it("signs the timestamp along when it sends one: a signature over the body alone is then refused", async () => {
    const headers = { "x-grafana-alerting-signature": hmacHex("g", BODY), "x-grafana-alerting-timestamp": ts };
    expect(await verifyHook(grafana, ["g"], req(headers, BODY))).toEqual({
      ok: false,
      reason: "X-Grafana-Alerting-Signature missing or does not match",
    });
  });

  it("refuses a stale timestamp even when the signature over it is right", async () => {
    const old = String(NOW_S - 301);
    const headers = {
      "x-grafana-alerting-signature": hmacHex("g", `${old}:${BODY}`),
      "x-grafana-alerting-timestamp": old,
    };
    expect(await verifyHook(grafana, ["g"], req(headers, BODY))).toEqual({
      ok: false,
      reason: "X-Grafana-Alerting-Timestamp: timestamp outside the 300s tolerance",
    });
    const garbled = { ...headers, "x-grafana-alerting-timestamp": "soon" };
    expect(await verifyHook(grafana, ["g"], req(garbled, BODY))).toEqual({
      ok: false,
      reason: "X-Grafana-Alerting-Timestamp: timestamp missing or not unix seconds",
    });
  });

  it("refuses a missing or wrong signature", async () => {
    const refused = { ok: false, reason: "X-Grafana-Alerting-Signature missing or does not match" };
    expect(await verifyHook(grafana, ["g"], req({}, BODY))).toEqual(refused);
    expect(await verifyHook(grafana, ["g"], req({ "x-grafana-alerting-signature": hmacHex("x", BODY) }, BODY))).toEqual(
      refused,
    );
  });
});

describe("a token hook", () => {
  it("takes the secret as a bearer token, in any case, or bare", async () => {
    const h = hook({ verify: "token" });
    for (const value of ["Bearer tok", "bearer  tok", " tok "])
      expect(await verifyHook(h, ["tok"], req({ authorization: value }, BODY)), value).toEqual({
        ok: true,
        deliveryId: bodyKey(BODY),
      });
  });

  it("strips `Bearer ` only from the start of Authorization, and only there", async () => {
    const refused = { ok: false, reason: "authorization: missing or not the hook's secret" };
    expect(await verifyHook(hook({ verify: "token" }), ["tok"], req({ authorization: "x Bearer tok" }, BODY))).toEqual(
      refused,
    );
    expect(await verifyHook(hook({ verify: "token" }), ["tok"], req({ authorization: "Bearertok" }, BODY))).toEqual(
      refused,
    );
    expect(await verifyHook(hook({ verify: "token" }), ["xtok"], req({ authorization: "xBearer tok" }, BODY))).toEqual(
      refused,
    );
    // A secret that itself starts with "Bearer " in another header is compared whole.
    const named = hook({ verify: "token", token_header: "x-token" });
    expect(await verifyHook(named, ["Bearer tok"], req({ "x-token": "Bearer tok" }, BODY))).toMatchObject({ ok: true });
    expect(await verifyHook(named, ["tok"], req({ "x-token": "Bearer tok" }, BODY))).toEqual({
      ok: false,
      reason: "x-token: missing or not the hook's secret",
    });
  });

  it("takes the delivery id from the named header when there is one", async () => {
    const h = hook({ verify: "token", token_header: "x-token", delivery_header: "x-id" });
    expect(await verifyHook(h, ["tok"], req({ "x-token": "tok", "x-id": "7" }, BODY))).toEqual({
      ok: true,
      deliveryId: "7",
    });
    expect(await verifyHook(h, ["tok"], req({ "x-token": "tok" }, BODY))).toEqual({
      ok: true,
      deliveryId: bodyKey(BODY),
    });
  });

  it("refuses a missing header, even when a secret is empty", async () => {
    const h = hook({ verify: "token", token_header: "x-token" });
    const refused = { ok: false, reason: "x-token: missing or not the hook's secret" };
    expect(await verifyHook(h, ["tok"], req({}, BODY))).toEqual(refused);
    expect(await verifyHook(h, [""], req({}, BODY))).toEqual(refused);
    expect(await verifyHook(h, ["", "tok"], req({ "x-token": "" }, BODY))).toEqual(refused);
    expect(await verifyHook(hook({ verify: "token" }), ["", "tok"], req({}, BODY))).toEqual({
      ok: false,
      reason: "authorization: missing or not the hook's secret",
    });
  });
});
