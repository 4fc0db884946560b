import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type ChatMessage,
  type ChatTool,
  callLlm,
  type LlmConfig,
  type LlmResult,
} from "../../../durable-objects/conversation/llm/index.js";
import type { ScriptRuleInput } from "../../../scripted-llm/script.js";
import { type ScriptedLlm, startScriptedLlm } from "../../../scripted-llm/server.js";

// callLlm with provider "anthropic" against the scripted model speaking the Messages API: real
// HTTP, the real @anthropic-ai/sdk client, real SSE with event names.

let llm: ScriptedLlm;
let config: LlmConfig;

beforeAll(async () => {
  llm = await startScriptedLlm({ port: 0 });
  config = {
    provider: "anthropic",
    baseURL: llm.origin,
    apiKey: "sk-ant-test",
    model: "claude-test",
    maxRetries: 2,
    timeoutMs: 5_000,
  };
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

const tools: ChatTool[] = ["bash", "read"].map((name) => ({
  type: "function",
  function: { name, description: `the ${name} tool`, parameters: { type: "object", properties: {} } },
}));
const ask = (text: string): ChatMessage[] => [
  { role: "system", content: "You are terse." },
  { role: "user", content: text },
];
const script = (...turns: ScriptRuleInput["turns"]) => llm.setRules([{ turns }]);

function turnOf(result: LlmResult) {
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.error)}`);
  return result.turn;
}
function errorOf(result: LlmResult) {
  if (result.ok) throw new Error("expected an error");
  return result.error;
}
type Sent = { format: string; path: string; headers: Record<string, string>; body: Record<string, unknown> };
const sent = (i: number) => llm.requests()[i] as unknown as Sent;

describe("anthropic provider", () => {
  it("streams text and parallel tool calls, with the API's headers and cache breakpoints", async () => {
    script({
      content: "Checking both.",
      tool_calls: [
        { name: "bash", arguments: { command: "uptime" } },
        { name: "read", arguments: { path: "/etc/os-release" } },
      ],
    });
    const deltas: string[] = [];
    const turn = turnOf(await callLlm(config, { messages: ask("status?"), tools }, { onDelta: (d) => deltas.push(d) }));
    expect(turn.content).toBe("Checking both.");
    expect(deltas.join("")).toBe("Checking both.");
    expect(turn.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ["bash", { command: "uptime" }],
      ["read", { path: "/etc/os-release" }],
    ]);
    expect(turn.toolCalls[0]!.id).toMatch(/^toolu_/);
    expect(turn.finishReason).toBe("tool_calls");
    expect(turn.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(turn.usage!.completion_tokens).toBeGreaterThan(0);
    const request = sent(0);
    expect(request.format).toBe("anthropic");
    expect(request.path).toBe("/v1/messages");
    expect(request.headers["x-api-key"]).toBe("sk-ant-test");
    expect(request.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request.body).toMatchObject({ model: "claude-test", max_tokens: 8192, stream: true });
    expect(request.body.system).toEqual([
      { type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } },
    ]);
    expect((request.body.tools as { cache_control?: unknown }[]).at(-1)!.cache_control).toEqual({ type: "ephemeral" });
  });

  it("sends the results back as tool_result blocks the API accepts, and reads cached input as prompt tokens", async () => {
    script(
      {
        tool_calls: [
          { name: "bash", arguments: { command: "a" } },
          { name: "bash", arguments: { command: "b" } },
        ],
      },
      { content: "Results: {{tool_results}}" },
    );
    const first = turnOf(await callLlm(config, { messages: ask("two commands"), tools }));
    const history: ChatMessage[] = [
      ...ask("two commands"),
      {
        role: "assistant",
        content: first.content,
        tool_calls: first.toolCalls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        })),
      },
      { role: "tool", tool_call_id: first.toolCalls[0]!.id, content: "out-a" },
      { role: "tool", tool_call_id: first.toolCalls[1]!.id, content: "out-b" },
    ];
    const second = turnOf(await callLlm(config, { messages: history, tools }));
    expect(second.content).toBe("Results: out-a\n---\nout-b");
    expect(second.finishReason).toBe("stop");
    // Same tools and system both times: the scripted API reports that prefix as written to the
    // cache the first time and read from it the second; the prompt total counts every part.
    for (const [i, turn] of [first, second].entries()) {
      const { system, messages, tools: sentTools } = sent(i).body;
      expect(turn.usage!.prompt_tokens).toBe(Math.ceil(JSON.stringify([system, messages, sentTools]).length / 4));
    }
  });

  it("retries a 529 overloaded_error honouring retry-after, then answers", async () => {
    script({ content: "after the overload", error: { status: 529, retry_after: 0.2, times: 1 } });
    const started = Date.now();
    expect(turnOf(await callLlm(config, { messages: ask("hi") })).content).toBe("after the overload");
    expect(Date.now() - started).toBeGreaterThanOrEqual(180);
    expect(llm.requests()).toHaveLength(2);
  });

  it("gives up after the retries with the API's error type in the message", async () => {
    script({ content: "never", error: { status: 529 } });
    const error = errorOf(await callLlm({ ...config, maxRetries: 1 }, { messages: ask("hi") }));
    expect(error).toMatchObject({ kind: "http", status: 529 });
    expect(error.message).toContain("overloaded_error");
    expect(llm.requests()).toHaveLength(2);
  });

  it("does not sleep through a long retry-after: the wait comes back to the caller", async () => {
    script({ content: "never", error: { status: 429, retry_after: 120 } });
    const error = errorOf(await callLlm(config, { messages: ask("hi") }));
    expect(error).toMatchObject({ kind: "http", status: 429, retryAfterMs: 120_000 });
    expect(error.message).toContain("rate_limit_error");
    expect(llm.requests()).toHaveLength(1);
  });

  it("reports an error event inside a 200 stream", async () => {
    script({ content: "cut", error: { status: 529, in_stream: true, times: 1 } });
    const error = errorOf(await callLlm(config, { messages: ask("hi") }));
    expect(error.kind).toBe("invalid_response");
    expect(error.message).toContain("overloaded_error");
  });

  it("a max_tokens stop reads as length, the cut-off call's input as far as it came", async () => {
    script({
      tool_calls: [{ name: "bash", arguments: { command: "echo a long line of text" } }],
      quirks: { max_tokens_stop: true },
    });
    const turn = turnOf(await callLlm({ ...config, maxTokens: 50 }, { messages: ask("go"), tools }));
    expect(turn.finishReason).toBe("length");
    expect(() => JSON.parse(turn.toolCalls[0]!.arguments)).toThrow();
    expect(sent(0).body.max_tokens).toBe(50);
  });

  it("answers without streaming when asked to", async () => {
    script({ content: "whole", tool_calls: [{ name: "read", arguments: { path: "p" } }] });
    const turn = turnOf(await callLlm({ ...config, stream: false }, { messages: ask("go"), tools }));
    expect(turn.content).toBe("whole");
    expect(turn.toolCalls[0]).toMatchObject({ name: "read", arguments: '{"path":"p"}' });
    expect(sent(0).body.stream).toBe(false);
  });

  it("speaks the text protocol too: no tools sent, calls read from the text", async () => {
    script({ tool_calls: [{ name: "bash", arguments: { command: "ls" } }], quirks: { text_tool_call: "json" } });
    const turn = turnOf(await callLlm({ ...config, toolProtocol: "text" }, { messages: ask("list"), tools }));
    expect(turn.toolCalls).toMatchObject([{ name: "bash", arguments: '{"command":"ls"}' }]);
    expect(turn.textProtocol).toBe(true);
    expect(sent(0).body.tools).toBeUndefined();
    expect(JSON.stringify(sent(0).body.system)).toContain("## Tools");
  });

  it("a stream that stalls ends as a timeout", async () => {
    script({ content: "slow answer", quirks: { stall_after_first_chunk_ms: 1500 } });
    const error = errorOf(await callLlm({ ...config, timeoutMs: 300 }, { messages: ask("hi") }));
    expect(error).toMatchObject({ kind: "timeout" });
  });

  it("reads a stream whose events come without `event:` names (each data names its type)", async () => {
    const data = [
      { type: "message_start", message: { usage: { input_tokens: 3 } } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "unnamed" } },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } },
    ];
    const sse = data.map((d) => `data: ${JSON.stringify(d)}\n\n`).join("");
    const fetchStandIn: typeof fetch = async () =>
      new Response(sse, { headers: { "content-type": "text/event-stream" } });
    const turn = turnOf(await callLlm(config, { messages: ask("hi") }, { fetch: fetchStandIn }));
    expect(turn).toMatchObject({
      content: "unnamed",
      finishReason: "stop",
      usage: { prompt_tokens: 3, completion_tokens: 2 },
    });
  });

  it("says so when no key is configured, without a request", async () => {
    const error = errorOf(await callLlm({ ...config, apiKey: "" }, { messages: ask("hi") }));
    expect(error.message).toBe("ANTHROPIC_API_KEY is not set");
    expect(llm.requests()).toHaveLength(0);
  });
});
