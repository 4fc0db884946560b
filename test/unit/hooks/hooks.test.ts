import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { signStandardWebhook } from "@edgeloop/protocol/webhook-signatures";
import { describe, expect, it } from "vitest";
import { type Hook, HooksVarsSchema } from "../../../worker/hooks/hook-settings.js";
import { renderTemplate } from "../../../worker/hooks/render-template.js";
import { type HookRequest, verifyHook } from "../../../worker/hooks/verify-hook.js";

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/hooks/${name}`, import.meta.url), "utf8");
const NOW = 1_767_225_600_000;

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
  nowMs: NOW,
  toleranceSeconds: 300,
});

describe("hook templates", () => {
  const payload = JSON.parse(fixture("grafana-firing.json"));
  it("fills dotted paths, array indexes and the request's facts", () => {
    expect(
      renderTemplate("{{title}}: {{alerts.0.labels.alertname}} in {{ alerts.1.labels.zone }} ({{@hook}})", payload, {
        hook: "grafana",
      }),
    ).toBe("[FIRING:2]  (blue): High memory usage in eu-1 (grafana)");
  });

  it("shows objects as JSON, missing fields as nothing, and evaluates nothing else", () => {
    expect(renderTemplate("{{commonLabels}}|{{nope.deeper}}|{{@nope}}", payload, {})).toBe('{"team":"blue"}||');
    expect(renderTemplate("{{#alerts}}x{{/alerts}} {{constructor}} {{__proto__}}", payload, {})).toBe(
      "{{#alerts}}x{{/alerts}}  ",
    );
  });
});

describe("hook verification", () => {
  it("github: GitHub's own test vector verifies, and the delivery id is the key", async () => {
    // docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries#testing-the-webhook-payload-validation
    const headers = {
      "x-hub-signature-256": "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
      "x-github-delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958",
      "x-github-event": "issues",
    };
    expect(await verifyHook(hook({}), ["It's a Secret to Everybody"], req(headers, "Hello, World!"))).toEqual({
      ok: true,
      deliveryId: "72d3162e-cc78-11e3-81ab-4c9367dc0958",
      event: "issues",
    });
    expect(await verifyHook(hook({}), ["another"], req(headers, "Hello, World!"))).toMatchObject({ ok: false });
    expect(await verifyHook(hook({}), ["It's a Secret to Everybody"], req(headers, "Hello, World?"))).toMatchObject({
      ok: false,
    });
  });

  it("github: every secret of a rotation is tried", async () => {
    const body = fixture("github-issues-opened.json");
    const sig = `sha256=${createHmac("sha256", "new").update(body).digest("hex")}`;
    const headers = { "x-hub-signature-256": sig, "x-github-delivery": "d1" };
    expect(await verifyHook(hook({}), ["old", "new"], req(headers, body))).toMatchObject({ ok: true });
  });

  it("grafana: HMAC over `timestamp:body` with the timestamp header, over the body alone without", async () => {
    const body = fixture("grafana-firing.json");
    const ts = String(NOW / 1000);
    const grafana = hook({ verify: "grafana" });
    const withTs = {
      "x-grafana-alerting-signature": createHmac("sha256", "g").update(`${ts}:${body}`).digest("hex"),
      "x-grafana-alerting-timestamp": ts,
    };
    const verdict = await verifyHook(grafana, ["g"], req(withTs, body));
    expect(verdict).toMatchObject({ ok: true, deliveryId: expect.stringMatching(/^body:[0-9a-f]{64}$/) });
    const bare = { "x-grafana-alerting-signature": createHmac("sha256", "g").update(body).digest("hex") };
    expect(await verifyHook(grafana, ["g"], req(bare, body))).toEqual(verdict);
    const stale = { ...withTs, "x-grafana-alerting-timestamp": String(NOW / 1000 - 301) };
    expect(await verifyHook(grafana, ["g"], req(stale, body))).toMatchObject({ ok: false });
  });

  it("standard: Standard Webhooks, keyed by webhook-id", async () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const ts = String(NOW / 1000);
    const body = '{"type":"contact.created"}';
    const headers = {
      "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
      "webhook-timestamp": ts,
      "webhook-signature": await signStandardWebhook(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", ts, body),
    };
    expect(await verifyHook(hook({ verify: "standard" }), [secret], req(headers, body))).toEqual({
      ok: true,
      deliveryId: "msg_p5jXN8AQM9LWM0D4loKWxJek",
    });
  });

  it("token: the secret as a bearer token or in a named header", async () => {
    const bearer = hook({ verify: "token" });
    expect(await verifyHook(bearer, ["s3"], req({ authorization: "Bearer s3" }, "{}"))).toMatchObject({ ok: true });
    expect(await verifyHook(bearer, ["s3"], req({ authorization: "Bearer s4" }, "{}"))).toMatchObject({ ok: false });
    expect(await verifyHook(bearer, ["s3"], req({}, "{}"))).toMatchObject({ ok: false });
    const named = hook({ verify: "token", token_header: "X-HA-Token", delivery_header: "X-Request-Id" });
    expect(await verifyHook(named, ["s3"], req({ "x-ha-token": "s3", "x-request-id": "r-1" }, "{}"))).toEqual({
      ok: true,
      deliveryId: "r-1",
    });
  });
});

describe("hook settings", () => {
  it("need a secret for every hook and exactly one target", () => {
    const hooks = JSON.stringify({ gh: { verify: "github", agent: "pi-1", template: "{{action}}" } });
    expect(HooksVarsSchema.safeParse({ HOOKS: hooks, HOOK_SECRETS: "gh:s" }).success).toBe(true);
    expect(HooksVarsSchema.safeParse({ HOOKS: hooks }).error?.issues[0]?.message).toContain("hook 'gh' has no secret");
    const both = JSON.stringify({ gh: { verify: "github", agent: "pi-1", pool: "lab", template: "x" } });
    expect(HooksVarsSchema.safeParse({ HOOKS: both, HOOK_SECRETS: "gh:s" }).success).toBe(false);
  });
});
