import { createHmac } from "node:crypto";
import { signHmacWebhook, verifyHmacWebhook } from "@edgeloop/protocol/webhook-signatures";
import { describe, expect, it } from "vitest";

/** Outbound webhook tools sign with the same scheme inbound webhooks are verified with. */
describe("webhook HMAC (X-Webhook-Signature)", () => {
  it("matches node:crypto", async () => {
    const expected = createHmac("sha256", "key").update("1.message").digest("hex");
    expect(await signHmacWebhook("key", "1", "message")).toBe(`sha256=${expected}`);
  });

  // biome-ignore lint/suspicious/noTemplateCurlyInString: the name quotes the signed string's template
  it("signs `${timestamp}.${body}` as sha256=<hex>", async () => {
    const body = '{"a":"é"}';
    const expected = createHmac("sha256", "k").update(`1700000000.${body}`).digest("hex");
    expect(await signHmacWebhook("k", "1700000000", body)).toBe(`sha256=${expected}`);
  });

  it("decodes whsec_ secrets like the inbound side does", async () => {
    const key = Buffer.from("raw key bytes");
    const secret = `whsec_${key.toString("base64")}`;
    const expected = createHmac("sha256", key).update("1.body").digest("hex");
    expect(await signHmacWebhook(secret, "1", "body")).toBe(`sha256=${expected}`);
  });

  it("verifies its own signature and rejects a changed body, timestamp or secret", async () => {
    const opts = { nowMs: 5_000, toleranceSeconds: 300 };
    const sig = await signHmacWebhook("k", "5", "body");
    expect((await verifyHmacWebhook(["k"], sig, "5", "body", opts)).ok).toBe(true);
    expect((await verifyHmacWebhook(["k"], sig, "5", "body!", opts)).ok).toBe(false);
    expect((await verifyHmacWebhook(["k"], sig, "6", "body", opts)).ok).toBe(false);
    expect((await verifyHmacWebhook(["other"], sig, "5", "body", opts)).ok).toBe(false);
    expect((await verifyHmacWebhook(["k"], "sha256=00", "5", "body", opts)).ok).toBe(false);
  });
});
