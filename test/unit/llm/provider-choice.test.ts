import { describe, expect, it } from "vitest";
import { type ModelEnv, modelSettings } from "../../../durable-objects/conversation/settings/model-settings.js";

// Which provider a deployment's settings choose, and what each needs. A fresh env object per
// case: settings are parsed once per env.

const binding = { run: async () => ({ response: "" }) };
const settingsOf = (env: ModelEnv) => {
  const parsed = modelSettings({ ...env });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};

describe("provider choice", () => {
  it("deployed with nothing configured: Workers AI through the binding, its default model", () => {
    expect(settingsOf({ AI: binding })).toMatchObject({
      provider: "workers-ai",
      model: "@cf/meta/llama-3.3-70b-instruct-fp8-fast",
      unavailable: null,
    });
  });

  it("an OPENAI_BASE_URL means openai, as before providers existed, even with the binding there", () => {
    expect(settingsOf({ AI: binding, OPENAI_BASE_URL: "http://127.0.0.1:1/v1" })).toMatchObject({
      provider: "openai",
      model: "gpt-4o-mini",
      unavailable: null,
    });
  });

  it("an ANTHROPIC_API_KEY means anthropic; its default model; the base URL when set", () => {
    expect(
      settingsOf({ AI: binding, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "https://gw.example/anthropic" }),
    ).toMatchObject({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      baseURL: "https://gw.example/anthropic",
      apiKey: "k",
      unavailable: null,
    });
  });

  it("LLM_PROVIDER wins, and says what it is missing", () => {
    expect(settingsOf({ LLM_PROVIDER: "workers-ai", OPENAI_BASE_URL: "http://x.test/v1" })).toMatchObject({
      provider: "workers-ai",
      unavailable: expect.stringContaining("`npx wrangler dev --env workers-ai`"),
    });
    expect(settingsOf({}).unavailable).toMatch(/^no model is configured.*--env workers-ai.*OPENAI_BASE_URL/);
    expect(settingsOf({ LLM_PROVIDER: "anthropic", AI: binding })).toMatchObject({
      unavailable: "ANTHROPIC_API_KEY is not set",
    });
    expect(settingsOf({ LLM_PROVIDER: "openai", AI: binding })).toMatchObject({
      unavailable: "OPENAI_BASE_URL is not set",
    });
    expect(settingsOf({ LLM_PROVIDER: "workers-ai", AI: binding, LLM_MODEL: "@cf/openai/gpt-oss-120b" }).model).toBe(
      "@cf/openai/gpt-oss-120b",
    );
  });

  it("nothing and no binding: no model, saying how to configure one", () => {
    expect(settingsOf({})).toMatchObject({ provider: null, unavailable: expect.stringContaining("LLM_PROVIDER") });
  });

  it("refuses bad values by name", () => {
    expect(modelSettings({ LLM_PROVIDER: "gemini" } as ModelEnv)).toMatchObject({
      ok: false,
      error: expect.stringContaining("LLM_PROVIDER"),
    });
    expect(modelSettings({ LLM_MAX_TOKENS: "0" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("LLM_MAX_TOKENS"),
    });
  });

  it("reads the gateway, caching and token cap settings", () => {
    expect(
      settingsOf({
        AI: binding,
        AI_GATEWAY_ID: "gw",
        AI_GATEWAY_TOKEN: "t",
        LLM_PROMPT_CACHING: "false",
        LLM_MAX_TOKENS: "1000",
      }),
    ).toMatchObject({ gatewayId: "gw", gatewayToken: "t", promptCaching: false, maxTokens: 1000 });
  });
});
