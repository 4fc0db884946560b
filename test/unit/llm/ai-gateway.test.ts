import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { callLlm, type LlmConfig } from "../../../durable-objects/conversation/llm/index.js";
import { type ScriptedLlm, startScriptedLlm } from "../../../scripted-llm/server.js";

// Cloudflare AI Gateway in front of each provider: the base URL is the gateway's, in its shape
// for that provider (https://gateway.ai.cloudflare.com/v1/{account}/{gateway}/{provider}…), here
// served by the scripted model on loopback. The request must go to that URL in that provider's
// wire format, with the gateway token when one is set.

let llm: ScriptedLlm;
beforeAll(async () => {
  llm = await startScriptedLlm({ port: 0, rules: [{ turns: [{ content: "through the gateway" }] }] });
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

const gateway = () => `${llm.origin}/v1/acct-123/edge-gw`;
const ask = { messages: [{ role: "user" as const, content: "hello" }] };

async function answerVia(config: LlmConfig) {
  const result = await callLlm({ maxRetries: 0, timeoutMs: 5_000, ...config }, ask);
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  expect(result.turn.content).toBe("through the gateway");
  const [request] = llm.requests();
  return request!;
}

describe("AI Gateway base URLs", () => {
  it("openai: {gateway}/openai, Chat Completions, with cf-aig-authorization", async () => {
    const request = await answerVia({
      provider: "openai",
      baseURL: `${gateway()}/openai`,
      apiKey: "sk-openai",
      model: "gpt-4o-mini",
      gatewayToken: "aig-token",
    });
    expect(request.path).toBe("/v1/acct-123/edge-gw/openai/chat/completions");
    expect(request.format).toBe("openai");
    expect(request.headers.authorization).toBe("Bearer sk-openai");
    expect(request.headers["cf-aig-authorization"]).toBe("Bearer aig-token");
  });

  it("workers-ai over REST: {gateway}/workers-ai/v1, Chat Completions with the @cf model name", async () => {
    const request = await answerVia({
      provider: "openai",
      baseURL: `${gateway()}/workers-ai/v1`,
      apiKey: "cf-api-token",
      model: "@cf/meta/llama-3.3-70b-instruct-fp8-fast",
    });
    expect(request.path).toBe("/v1/acct-123/edge-gw/workers-ai/v1/chat/completions");
    expect((request.body as { model: string }).model).toBe("@cf/meta/llama-3.3-70b-instruct-fp8-fast");
    expect(request.headers.authorization).toBe("Bearer cf-api-token");
    expect(request.headers["cf-aig-authorization"]).toBeUndefined();
  });

  it("anthropic: {gateway}/anthropic, the Messages API, with cf-aig-authorization", async () => {
    const request = await answerVia({
      provider: "anthropic",
      baseURL: `${gateway()}/anthropic`,
      apiKey: "sk-ant",
      model: "claude-sonnet-4-5",
      gatewayToken: "aig-token",
    });
    expect(request.path).toBe("/v1/acct-123/edge-gw/anthropic/v1/messages");
    expect(request.format).toBe("anthropic");
    expect(request.headers["x-api-key"]).toBe("sk-ant");
    expect(request.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request.headers["cf-aig-authorization"]).toBe("Bearer aig-token");
  });
});
