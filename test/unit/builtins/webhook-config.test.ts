import { describe, expect, it } from "vitest";
import { parseWebhookTools, webhookToolSpecs } from "../../../durable-objects/conversation/builtins/webhook-tools.js";

const minimal = { name: "weather", description: "Weather for a city", url: "https://hooks.example.com/weather" };

describe("parseWebhookTools", () => {
  it("treats unset or blank as no tools", () => {
    expect(parseWebhookTools(undefined)).toEqual({ ok: true, tools: [] });
    expect(parseWebhookTools("  ")).toEqual({ ok: true, tools: [] });
  });

  it("fills the defaults: POST, 30 s timeout, 3 retries, policy auto", () => {
    const parsed = parseWebhookTools(JSON.stringify([minimal]));
    expect(parsed).toEqual({
      ok: true,
      tools: [
        {
          ...minimal,
          parameters: { type: "object", properties: {}, required: [] },
          method: "POST",
          headers: {},
          timeout_secs: 30,
          max_retries: 3,
          policy: "auto",
        },
      ],
    });
  });

  it("accepts a full webhook tool definition, type and all", () => {
    const full = {
      type: "webhook",
      ...minimal,
      parameters: { type: "object", properties: { city: { type: "string", description: "City" } }, required: ["city"] },
      method: "POST",
      headers: { "X-Api-Key": "k" },
      timeout_secs: 10,
      max_retries: 1,
      policy: "requires_approval",
      secret: "whsec_abc",
    };
    const parsed = parseWebhookTools(JSON.stringify([full]));
    expect(parsed.ok && parsed.tools[0]).toMatchObject({
      policy: "requires_approval",
      secret: "whsec_abc",
      timeout_secs: 10,
    });
  });

  it("names the failing field", () => {
    const bad = parseWebhookTools(JSON.stringify([minimal, { ...minimal, name: "w2", url: "ftp://x" }]));
    expect(bad).toEqual({ ok: false, error: expect.stringContaining("[1].url: must be an absolute http(s) URL") });
    const badRetries = parseWebhookTools(JSON.stringify([{ ...minimal, max_retries: -1 }]));
    expect(!badRetries.ok && badRetries.error).toContain("[0].max_retries");
    const typo = parseWebhookTools(JSON.stringify([{ ...minimal, timeout: 5 }]));
    expect(!typo.ok && typo.error).toContain("timeout");
    const badName = parseWebhookTools(JSON.stringify([{ ...minimal, name: "has space" }]));
    expect(!badName.ok && badName.error).toContain("[0].name");
  });

  it("reports malformed JSON, a non-array and duplicate names", () => {
    expect(parseWebhookTools("[{")).toEqual({ ok: false, error: expect.stringContaining("malformed JSON") });
    expect(parseWebhookTools(JSON.stringify(minimal)).ok).toBe(false);
    const dup = parseWebhookTools(JSON.stringify([minimal, minimal]));
    expect(!dup.ok && dup.error).toContain('[1].name: duplicate tool name "weather"');
  });
});

describe("webhookToolSpecs", () => {
  it("are builtin specs whose deadline covers every attempt and the backoff", () => {
    const parsed = parseWebhookTools(JSON.stringify([{ ...minimal, timeout_secs: 5, max_retries: 2 }]));
    if (!parsed.ok) throw new Error(parsed.error);
    const [spec] = webhookToolSpecs(parsed.tools);
    expect(spec).toMatchObject({ name: "weather", description: "Weather for a city", kind: "builtin" });
    expect(spec!.timeout_ms).toBeGreaterThanOrEqual(3 * 5000);
    expect(spec!.max_timeout_ms).toBe(spec!.timeout_ms);
  });
});
