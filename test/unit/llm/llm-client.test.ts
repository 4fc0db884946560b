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

// callLlm end to end against the scripted model (real HTTP, real openai client, real SSE).

let llm: ScriptedLlm;
let config: LlmConfig;

beforeAll(async () => {
  llm = await startScriptedLlm({ port: 0 });
  config = { baseURL: llm.url, apiKey: "test", model: "scripted", maxRetries: 2, timeoutMs: 5_000 };
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

const tools: ChatTool[] = [
  {
    type: "function",
    function: {
      name: "bash",
      description: "Run a command",
      parameters: { type: "object", properties: { command: { type: "string" } } },
    },
  },
  {
    type: "function",
    function: {
      name: "read",
      description: "Read a file",
      parameters: { type: "object", properties: { path: { type: "string" } } },
    },
  },
];
const ask = (text: string) => [{ role: "user" as const, content: text }];

function oneTurn(turn: ScriptRuleInput["turns"][number]) {
  llm.setRules([{ turns: [turn] }]);
}

function turnOf(result: LlmResult) {
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.error)}`);
  return result.turn;
}

function errorOf(result: LlmResult) {
  if (result.ok) throw new Error("expected an error");
  return result.error;
}

type SentBody = {
  tools?: unknown[];
  tool_choice?: unknown;
  stream?: boolean;
  stream_options?: unknown;
  messages: { role: string; content: unknown }[];
};
const sent = (i: number) => llm.requests()[i]!.body as SentBody;

describe("callLlm: answers", () => {
  it("streams text, reporting deltas as they come, with usage", async () => {
    oneTurn({ content: "The device is up and running fine." });
    const deltas: string[] = [];
    const turn = turnOf(
      await callLlm(config, { messages: ask("hi"), tools }, { idSeed: "t", onDelta: (d) => deltas.push(d) }),
    );
    expect(turn.content).toBe("The device is up and running fine.");
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(turn.content);
    expect(turn.finishReason).toBe("stop");
    expect(turn.usage!.completion_tokens).toBeGreaterThan(0);
    expect(sent(0)).toMatchObject({ stream: true, stream_options: { include_usage: true }, tools });
  });

  it("assembles native tool calls split across chunks", async () => {
    oneTurn({
      tool_calls: [
        { name: "read", arguments: { path: "/etc/hostname" }, id: "call_r" },
        { name: "bash", arguments: { command: "uptime" } },
      ],
    });
    const turn = turnOf(await callLlm(config, { messages: ask("x"), tools }, { idSeed: "t" }));
    expect(turn.finishReason).toBe("tool_calls");
    expect(turn.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ["read", { path: "/etc/hostname" }],
      ["bash", { command: "uptime" }],
    ]);
    expect(turn.toolCalls[0]!.id).toBe("call_r");
    expect(turn.textProtocol).toBeUndefined();
  });

  it("works non-streamed (stream: false)", async () => {
    oneTurn({ content: "ok", tool_calls: [{ name: "bash", arguments: { command: "ls" } }] });
    const deltas: string[] = [];
    const turn = turnOf(
      await callLlm(
        { ...config, stream: false },
        { messages: ask("x"), tools },
        { idSeed: "t", onDelta: (d) => deltas.push(d) },
      ),
    );
    expect(turn.content).toBe("ok");
    expect(turn.toolCalls.map((c) => c.name)).toEqual(["bash"]);
    expect(deltas).toEqual(["ok"]);
    expect(sent(0).stream).toBe(false);
  });

  it("omits tools (and tool_choice) when there are none", async () => {
    oneTurn({ content: "ok" });
    turnOf(await callLlm(config, { messages: ask("x"), tools: [], toolChoice: "auto" }));
    expect(sent(0).tools).toBeUndefined();
    expect(sent(0).tool_choice).toBeUndefined();
    turnOf(await callLlm(config, { messages: ask("x"), tools, toolChoice: "auto" }));
    expect(sent(1).tool_choice).toBe("auto");
  });

  it("sends a growing history whole on every call, old messages and new", async () => {
    llm.setRules([
      { turns: [{ tool_calls: [{ name: "bash", arguments: { command: "ls" }, id: "c1" }] }, { content: "done" }] },
    ]);
    const messages: ChatMessage[] = [{ role: "system", content: "be brief" }, ...ask("list files")];
    const first = turnOf(await callLlm(config, { messages, tools }, { idSeed: "h" }));
    messages.push(
      {
        role: "assistant",
        content: null,
        tool_calls: first.toolCalls.map((c) => ({
          id: c.id,
          type: "function" as const,
          function: { name: c.name, arguments: c.arguments },
        })),
      },
      { role: "tool", tool_call_id: "c1", content: 'a.txt\nb "quoted" ünïcode ✓' },
    );
    expect(turnOf(await callLlm(config, { messages, tools }, { idSeed: "h" })).content).toBe("done");
    expect(sent(0).messages).toEqual(messages.slice(0, 2));
    expect(sent(1).messages).toEqual(messages);
    expect(sent(1)).toMatchObject({ model: "scripted", stream: true, stream_options: { include_usage: true }, tools });
  });

  it("survives an onDelta listener that throws", async () => {
    oneTurn({ content: "still here" });
    const turn = turnOf(
      await callLlm(
        config,
        { messages: ask("x") },
        {
          onDelta: () => {
            throw new Error("listener broke");
          },
        },
      ),
    );
    expect(turn.content).toBe("still here");
  });
});

describe("callLlm: provider quirks end to end", () => {
  const call = { name: "bash", arguments: { command: "ls -la" } };
  const both = [true, false];

  it.each(both)("finish_reason stop with tool calls (stream=%s)", async (stream) => {
    oneTurn({ tool_calls: [call], quirks: { finish_reason_stop: true } });
    const turn = turnOf(await callLlm({ ...config, stream }, { messages: ask("x"), tools }, { idSeed: "q" }));
    expect(turn.toolCalls).toHaveLength(1);
    expect(turn.finishReason).toBe("tool_calls");
  });

  it.each(both)("arguments as an object (stream=%s)", async (stream) => {
    oneTurn({ tool_calls: [call], quirks: { arguments_as_object: true } });
    const turn = turnOf(await callLlm({ ...config, stream }, { messages: ask("x"), tools }, { idSeed: "q" }));
    expect(JSON.parse(turn.toolCalls[0]!.arguments)).toEqual({ command: "ls -la" });
  });

  it.each(both)("missing ids get seeded ids, the same on a retry (stream=%s)", async (stream) => {
    oneTurn({ tool_calls: [call, { name: "read", arguments: { path: "a" } }], quirks: { missing_ids: true } });
    const first = turnOf(await callLlm({ ...config, stream }, { messages: ask("x"), tools }, { idSeed: "conv_7" }));
    const retried = turnOf(await callLlm({ ...config, stream }, { messages: ask("x"), tools }, { idSeed: "conv_7" }));
    expect(first.toolCalls.map((c) => c.id)).toEqual(["call_conv_7_0", "call_conv_7_1"]);
    expect(retried.toolCalls).toEqual(first.toolCalls);
  });

  it("missing index: calls taken in order", async () => {
    oneTurn({ tool_calls: [call, { name: "read", arguments: { path: "a" } }], quirks: { missing_index: true } });
    const turn = turnOf(await callLlm(config, { messages: ask("x"), tools }, { idSeed: "q" }));
    expect(turn.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ["bash", { command: "ls -la" }],
      ["read", { path: "a" }],
    ]);
  });

  it("no usage chunk: no usage, still a turn", async () => {
    oneTurn({ content: "hi", quirks: { no_usage: true } });
    const turn = turnOf(await callLlm(config, { messages: ask("x") }));
    expect(turn.usage).toBeUndefined();
    expect(turn.content).toBe("hi");
  });

  it.each(["json", "xml"] as const)("tool call written as %s text despite native tools", async (style) => {
    oneTurn({ content: "Let me look.", tool_calls: [call], quirks: { text_tool_call: style } });
    const turn = turnOf(await callLlm(config, { messages: ask("x"), tools }, { idSeed: "tx" }));
    expect(turn.textProtocol).toBe(true);
    expect(turn.toolCalls).toEqual([{ id: "call_tx_0", name: "bash", arguments: '{"command":"ls -la"}' }]);
    expect(turn.content).toBe("Let me look.");
    expect(turn.finishReason).toBe("tool_calls");
  });

  it("malformed text tool call is reported, not guessed at", async () => {
    oneTurn({ content: '{"tool": "bash", "args": {"command": "ls"' });
    const turn = turnOf(await callLlm(config, { messages: ask("x"), tools }));
    expect(turn.toolCalls).toEqual([]);
    expect(turn.malformedToolCall).toMatch(/tool call for 'bash' is not valid JSON/);
  });
});

describe("callLlm: text-protocol models (toolProtocol: text)", () => {
  it("describes the tools in the system prompt, sends no native tools, and reads the call from text", async () => {
    llm.setRules([
      {
        turns: [
          { tool_calls: [{ name: "bash", arguments: { command: "uptime" } }], quirks: { text_tool_call: "json" } },
          { content: "Uptime: {{last_tool_result}}" },
        ],
      },
    ]);
    const textConfig: LlmConfig = { ...config, toolProtocol: "text" };
    const messages = [{ role: "system" as const, content: "You help." }, ...ask("how long has it been up?")];
    const first = turnOf(await callLlm(textConfig, { messages, tools }, { idSeed: "tp" }));
    expect(sent(0).tools).toBeUndefined();
    expect(String(sent(0).messages[0]!.content)).toMatch(/^You help\.\n\n## Tools[\s\S]*- bash: Run a command/);
    expect(first.textProtocol).toBe(true);
    expect(first.toolCalls).toEqual([{ id: "call_tp_0", name: "bash", arguments: '{"command":"uptime"}' }]);

    // The loop stores the native shape; callLlm rewrites it for the text-protocol model.
    const history = [
      ...messages,
      {
        role: "assistant" as const,
        content: null,
        tool_calls: first.toolCalls.map((c) => ({
          id: c.id,
          type: "function" as const,
          function: { name: c.name, arguments: c.arguments },
        })),
      },
      { role: "tool" as const, tool_call_id: "call_tp_0", content: "3 days" },
    ];
    const second = turnOf(await callLlm(textConfig, { messages: history, tools }, { idSeed: "tp2" }));
    expect(second.content).toBe("Uptime: 3 days");
    expect(sent(1).messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
  });
});

describe("callLlm: failures as values", () => {
  it("429 with Retry-After, then success: retried by the client, honouring the wait", async () => {
    oneTurn({ content: "after the wait", error: { status: 429, retry_after: 0.3, times: 1 } });
    const started = Date.now();
    const turn = turnOf(await callLlm(config, { messages: ask("x"), tools }));
    expect(turn.content).toBe("after the wait");
    expect(llm.requests()).toHaveLength(2);
    // The body goes to the client serialized: the retry sends it again, whole.
    expect(sent(1)).toEqual(sent(0));
    expect(sent(1)).toMatchObject({ model: "scripted", stream: true, tools, messages: ask("x") });
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });

  it("500 until retries run out: ok:false, http 500, 1 + maxRetries requests", async () => {
    oneTurn({ content: "never", error: { status: 500, retry_after: 0 } });
    const error = errorOf(await callLlm({ ...config, maxRetries: 2 }, { messages: ask("x") }));
    expect(error).toMatchObject({ kind: "http", status: 500 });
    expect(error.message).toContain("scripted 500");
    expect(llm.requests()).toHaveLength(3);
  });

  it("5xx without Retry-After backs off and retries (client default backoff)", async () => {
    oneTurn({ content: "recovered", error: { status: 503, times: 1 } });
    const turn = turnOf(await callLlm({ ...config, maxRetries: 1 }, { messages: ask("x") }));
    expect(turn.content).toBe("recovered");
    expect(llm.requests()).toHaveLength(2);
  });

  it("a Retry-After longer than maxRetryAfterMs is not slept through: error with retryAfterMs", async () => {
    oneTurn({ content: "later", error: { status: 429, retry_after: 120 } });
    const started = Date.now();
    const error = errorOf(await callLlm({ ...config, maxRetryAfterMs: 10_000 }, { messages: ask("x") }));
    expect(error).toMatchObject({ kind: "http", status: 429, retryAfterMs: 120_000 });
    expect(llm.requests()).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("4xx other than 408/409/429 is not retried", async () => {
    oneTurn({ content: "x", error: { status: 400, message: "tools not supported" } });
    const error = errorOf(await callLlm(config, { messages: ask("x") }));
    expect(error).toMatchObject({ kind: "http", status: 400 });
    expect(error.message).toContain("tools not supported");
    expect(llm.requests()).toHaveLength(1);
  });

  it("no response headers within timeoutMs: timeout", async () => {
    oneTurn({ content: "too late", delay_ms: 1_500 });
    const error = errorOf(await callLlm({ ...config, timeoutMs: 300, maxRetries: 0 }, { messages: ask("x") }));
    expect(error.kind).toBe("timeout");
  });

  it("a stream that stalls after it started: timeout", async () => {
    oneTurn({ content: "slow words here", quirks: { stall_after_first_chunk_ms: 1_500 } });
    const error = errorOf(await callLlm({ ...config, timeoutMs: 300, maxRetries: 0 }, { messages: ask("x") }));
    expect(error).toEqual({ kind: "timeout", message: "LLM stream stalled: no data for 300ms" });
  });

  it("nothing listening: network", async () => {
    const closed = await startScriptedLlm({ port: 0 });
    await closed.close();
    const error = errorOf(await callLlm({ ...config, baseURL: closed.url, maxRetries: 0 }, { messages: ask("x") }));
    expect(error.kind).toBe("network");
  });

  it("a 200 that is not a completion: invalid_response", async () => {
    const notJson: typeof fetch = async () =>
      new Response("<html>proxy login</html>", { status: 200, headers: { "content-type": "application/json" } });
    const error = errorOf(await callLlm({ ...config, stream: false }, { messages: ask("x") }, { fetch: notJson }));
    expect(error.kind).toBe("invalid_response");
    const noChoices: typeof fetch = async () => Response.json({ id: "x", object: "chat.completion", choices: [] });
    expect(errorOf(await callLlm({ ...config, stream: false }, { messages: ask("x") }, { fetch: noChoices }))).toEqual({
      kind: "invalid_response",
      message: "response has no choices",
    });
  });

  it("a stream with usage but no choices at all: invalid_response", async () => {
    const usageOnly: typeof fetch = async () =>
      new Response(
        'data: {"id":"x","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":0}}\n\ndata: [DONE]\n\n',
        {
          headers: { "content-type": "text/event-stream" },
        },
      );
    const error = errorOf(await callLlm(config, { messages: ask("x") }, { fetch: usageOnly }));
    expect(error.kind).toBe("invalid_response");
  });

  it("an error event inside the stream: invalid_response naming the provider's message", async () => {
    const midStreamError: typeof fetch = async () =>
      new Response(
        'data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\ndata: {"error":{"message":"upstream overloaded"}}\n\n',
        {
          headers: { "content-type": "text/event-stream" },
        },
      );
    const error = errorOf(await callLlm(config, { messages: ask("x") }, { fetch: midStreamError }));
    expect(error.kind).toBe("invalid_response");
    expect(error.message).toContain("upstream overloaded");
  });

  it("aborted by the caller: network, aborted", async () => {
    oneTurn({ content: "slow", delay_ms: 1_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = errorOf(await callLlm(config, { messages: ask("x") }, { signal: controller.signal }));
    expect(error).toMatchObject({ kind: "network" });
    expect(error.message).toMatch(/abort/i);
  });
});
