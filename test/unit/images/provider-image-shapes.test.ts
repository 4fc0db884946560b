/**
 * An image a tool returned, as each provider's request carries it: sent through callLlm to the
 * scripted model (real HTTP, the real clients), which refuses a request the real API would, and
 * recorded there; Workers AI through a stand-in binding that records its inputs.
 */
import { TOOL_IMAGES_TEXT } from "@edgeloop/protocol";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { MessageImage } from "../../../durable-objects/conversation/core/index.js";
import {
  type AiRunner,
  type ChatMessage,
  type ChatTool,
  callLlm,
  type LlmConfig,
  type LlmResult,
} from "../../../durable-objects/conversation/llm/index.js";
import { type ScriptedLlm, startScriptedLlm } from "../../../scripted-llm/server.js";

let llm: ScriptedLlm;
beforeAll(async () => {
  llm = await startScriptedLlm({ port: 0 });
});
afterAll(() => llm.close());
beforeEach(() => {
  llm.reset();
  // The answer to the user, or (the history having one assistant turn) to the tool results.
  llm.setRules([{ turns: [{ content: "I see a red square." }, { content: "I see a red square." }] }]);
});

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAADElEQVQImWP4z8AAAAMBAQCc479ZAAAAAElFTkSuQmCC";
const image = (n: number, data?: string): MessageImage => ({
  type: "image",
  media_type: "image/png",
  sha256: String(n).repeat(64).slice(0, 64),
  bytes: 69,
  width: 1,
  height: 1,
  url: "/v1/conversations/c/images/x",
  ...(data ? { data } : {}),
});
const tools: ChatTool[] = [
  { type: "function", function: { name: "image", parameters: { type: "object", properties: {} } } },
  { type: "function", function: { name: "bash", parameters: { type: "object", properties: {} } } },
];
const call = (id: string, name: string) => ({ id, type: "function" as const, function: { name, arguments: "{}" } });

/** One round of two calls: the first returned an image (its bytes read for this call), the second text. */
const history: ChatMessage[] = [
  { role: "system", content: "You look at things." },
  { role: "user", content: "what is on the screen?" },
  { role: "assistant", content: null, tool_calls: [call("call_a", "image"), call("call_b", "bash")] },
  {
    role: "tool",
    tool_call_id: "call_a",
    content: "Image shot.png (1x1 image/png, 69 bytes)",
    images: [image(1, PNG)],
  },
  { role: "tool", tool_call_id: "call_b", content: "ok" },
];

const ok = (result: LlmResult) => {
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.turn;
};
const body = () => llm.requests().at(-1)!.body as { messages: unknown[] };

describe("images in the model request", () => {
  it("OpenAI-compatible: the tool messages keep their text; one user message after them carries the image_url parts", async () => {
    const config: LlmConfig = { baseURL: llm.url, apiKey: "k", model: "m", maxRetries: 0 };
    expect(ok(await callLlm(config, { messages: history, tools })).content).toBe("I see a red square.");
    expect(body().messages.slice(2)).toEqual([
      { role: "assistant", content: null, tool_calls: [call("call_a", "image"), call("call_b", "bash")] },
      { role: "tool", tool_call_id: "call_a", content: "Image shot.png (1x1 image/png, 69 bytes)" },
      { role: "tool", tool_call_id: "call_b", content: "ok" },
      {
        role: "user",
        content: [
          { type: "text", text: TOOL_IMAGES_TEXT },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
  });

  it("OpenAI-compatible: a user's image is part of its message; an image-only result says to see it", async () => {
    const config: LlmConfig = { baseURL: llm.url, apiKey: "k", model: "m", maxRetries: 0 };
    const messages: ChatMessage[] = [
      { role: "user", content: "this one", images: [image(1, PNG)] },
      { role: "assistant", content: null, tool_calls: [call("call_a", "image")] },
      { role: "tool", tool_call_id: "call_a", content: "", images: [image(2, PNG)] },
    ];
    ok(await callLlm(config, { messages, tools }));
    expect(body().messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "this one" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
      messages[1],
      { role: "tool", tool_call_id: "call_a", content: "(see attached image)" },
      {
        role: "user",
        content: [
          { type: "text", text: TOOL_IMAGES_TEXT },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
  });

  it("OpenAI-compatible: an image whose bytes were not read for the call is not sent, nor is the images field", async () => {
    const config: LlmConfig = { baseURL: llm.url, apiKey: "k", model: "m", maxRetries: 0 };
    const messages = history.map((m) => (m.role === "tool" && m.images ? { ...m, images: [image(1)] } : m));
    ok(await callLlm(config, { messages, tools }));
    expect(JSON.stringify(body())).not.toContain("image_url");
    expect(JSON.stringify(body())).not.toContain('"images"');
  });

  it("Anthropic: the image block is inside the tool_result, after its text", async () => {
    const config: LlmConfig = { provider: "anthropic", baseURL: llm.origin, apiKey: "k", model: "m", maxRetries: 0 };
    expect(ok(await callLlm(config, { messages: history, tools })).content).toBe("I see a red square.");
    const [, , results] = body().messages as { role: string; content: Record<string, unknown>[] }[];
    expect(results!.role).toBe("user");
    expect(results!.content[0]).toEqual({
      type: "tool_result",
      tool_use_id: "call_a",
      content: [
        { type: "text", text: "Image shot.png (1x1 image/png, 69 bytes)" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      ],
    });
    expect(results!.content[1]).toMatchObject({ type: "tool_result", tool_use_id: "call_b", content: "ok" });
  });

  it("Anthropic: a user's image follows its text as an image block", async () => {
    const config: LlmConfig = { provider: "anthropic", baseURL: llm.origin, apiKey: "k", model: "m", maxRetries: 0 };
    ok(await callLlm(config, { messages: [{ role: "user", content: "this one", images: [image(1, PNG)] }] }));
    expect(body().messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "this one" },
          // the history's cache breakpoint sits on the last block
          {
            type: "image",
            source: { type: "base64", media_type: "image/png", data: PNG },
            cache_control: { type: "ephemeral" },
          },
        ],
      },
    ]);
  });

  it("Workers AI: the binding's messages carry image_url parts with a data URL, as its vision models take them", async () => {
    const inputs: Record<string, unknown>[] = [];
    const ai: AiRunner = {
      async run(_model, input) {
        inputs.push(structuredClone(input));
        return { response: "I see a red square." };
      },
    };
    const config: LlmConfig = {
      provider: "workers-ai",
      ai,
      model: "@cf/meta/llama-4-scout-17b-16e-instruct",
      stream: false,
    };
    expect(ok(await callLlm(config, { messages: history, tools })).content).toBe("I see a red square.");
    expect((inputs[0]!.messages as unknown[]).slice(3)).toEqual([
      { role: "tool", tool_call_id: "call_a", content: "Image shot.png (1x1 image/png, 69 bytes)", name: "image" },
      { role: "tool", tool_call_id: "call_b", content: "ok", name: "bash" },
      {
        role: "user",
        content: [
          { type: "text", text: TOOL_IMAGES_TEXT },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
  });

  it("text tool protocol: the results' user message carries their images", async () => {
    const config: LlmConfig = { baseURL: llm.url, apiKey: "k", model: "m", maxRetries: 0, toolProtocol: "text" };
    ok(await callLlm(config, { messages: history, tools }));
    const last = body().messages.at(-1) as { role: string; content: { type: string }[] };
    expect(last.role).toBe("user");
    expect(last.content.map((p) => p.type)).toEqual(["text", "image_url"]);
  });
});

describe("the scripted model refuses the image shapes the real APIs refuse", () => {
  const config = () => ({ baseURL: llm.url, apiKey: "k", model: "m", maxRetries: 0 }) as LlmConfig;
  const post = (format: "openai" | "anthropic", payload: object) =>
    fetch(format === "openai" ? `${llm.url}/chat/completions` : `${llm.origin}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "k", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "m", max_tokens: 10, ...payload }),
    });

  it("Chat Completions: an image in a tool message, a bad data URL, a message between a call and its result", async () => {
    const part = (url: string) => ({ type: "image_url", image_url: { url } });
    const round = [
      { role: "user", content: "x" },
      { role: "assistant", content: null, tool_calls: [call("c1", "image"), call("c2", "bash")] },
    ];
    const inTool = await post("openai", {
      messages: [...round, { role: "tool", tool_call_id: "c1", content: [part(`data:image/png;base64,${PNG}`)] }],
    });
    expect(inTool.status).toBe(400);
    expect(await inTool.text()).toContain("Image URLs are only allowed for messages with role 'user'");
    const badUrl = await post("openai", {
      messages: [{ role: "user", content: [part("data:image/tiff;base64,AAAA")] }],
    });
    expect(badUrl.status).toBe(400);
    const between = await post("openai", {
      messages: [
        ...round,
        { role: "tool", tool_call_id: "c1", content: "a" },
        { role: "user", content: [part(`data:image/png;base64,${PNG}`)] },
        { role: "tool", tool_call_id: "c2", content: "b" },
      ],
    });
    expect(between.status).toBe(400);
    expect(ok(await callLlm(config(), { messages: history, tools })).content).toBe("I see a red square.");
  });

  it("Messages API: an image with a type the API does not read, or with no data", async () => {
    const img = (media_type: string, data: string) => ({ type: "image", source: { type: "base64", media_type, data } });
    const tiff = await post("anthropic", { messages: [{ role: "user", content: [img("image/tiff", "AAAA")] }] });
    expect(tiff.status).toBe(400);
    expect(await tiff.text()).toContain("source.media_type");
    const empty = await post("anthropic", { messages: [{ role: "user", content: [img("image/png", "")] }] });
    expect(empty.status).toBe(400);
  });
});
