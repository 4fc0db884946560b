import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  hmacSha256Hex,
  verifyWebhookSignature,
  webhookSignature,
} from "../../../durable-objects/conversation/builtins/hmac.js";

describe("webhook HMAC", () => {
  it("matches node:crypto", async () => {
    expect(await hmacSha256Hex("key", "message")).toBe(createHmac("sha256", "key").update("message").digest("hex"));
  });

  // biome-ignore lint/suspicious/noTemplateCurlyInString: the name quotes the signed string's template
  it("signs `${timestamp}.${body}` as sha256=<hex>", async () => {
    const body = '{"a":"é"}';
    const expected = createHmac("sha256", "k").update(`1700000000.${body}`).digest("hex");
    expect(await webhookSignature("k", 1700000000, body)).toBe(`sha256=${expected}`);
  });

  it("decodes whsec_ secrets like the inbound side does", async () => {
    const key = Buffer.from("raw key bytes");
    const secret = `whsec_${key.toString("base64")}`;
    const expected = createHmac("sha256", key).update("1.body").digest("hex");
    expect(await webhookSignature(secret, 1, "body")).toBe(`sha256=${expected}`);
  });

  it("verifies its own signature and rejects a changed body, timestamp or secret", async () => {
    const sig = await webhookSignature("k", 5, "body");
    expect(await verifyWebhookSignature("k", 5, "body", sig)).toBe(true);
    expect(await verifyWebhookSignature("k", 5, "body!", sig)).toBe(false);
    expect(await verifyWebhookSignature("k", 6, "body", sig)).toBe(false);
    expect(await verifyWebhookSignature("other", 5, "body", sig)).toBe(false);
    expect(await verifyWebhookSignature("k", 5, "body", "sha256=00")).toBe(false);
  });
});
