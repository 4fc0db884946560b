/**
 * The workers-ai provider inside workerd, against a stand-in for the `AI` binding answering in
 * each shape the binding documents: its own `{response, tool_calls:[{name, arguments}]}` form
 * and OpenAI's `choices` form, whole or as an SSE stream, and its errors.
 */
import { describe, expect, it } from "vitest";
import {
  type ChatTool,
  callLlm,
  type LlmConfig,
  type LlmResult,
} from "../../durable-objects/conversation/llm/index.js";
import { aiStandIn, type StandInAnswer, sseOf } from "./support/ai-standin.js";

const tools: ChatTool[] = ["bash", "read"].map((name) => ({
  type: "function",
  function: { name, description: `${name} tool`, parameters: { type: "object", properties: {} } },
}));
const MODEL = "@cf/meta/llama-3.3-70b-instruct-fp8-fast";

async function call(
  answers: StandInAnswer[],
  config: Partial<LlmConfig> = {},
  messages = [{ role: "user" as const, content: "hi" }],
) {
  const ai = aiStandIn(answers);
  const deltas: string[] = [];
  const result = await callLlm(
    { provider: "workers-ai", ai, model: MODEL, maxRetries: 2, timeoutMs: 2_000, ...config },
    { messages, tools },
    { idSeed: "seed", onDelta: (d) => deltas.push(d) },
  );
  return { result, ai, deltas: deltas.join("") };
}

function turnOf(result: LlmResult) {
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.error)}`);
  return result.turn;
}

describe("workers-ai provider (stand-in binding)", () => {
  it("reads the binding's own form: response text, tool_calls with object arguments, no ids", async () => {
    const { result, ai } = await call(
      [
        {
          response: "",
          tool_calls: [
            { name: "bash", arguments: { command: "ls" } },
            { name: "bash", arguments: { command: "pwd" } },
          ],
          usage: { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42 },
        },
      ],
      { stream: false },
    );
    expect(turnOf(result)).toEqual({
      content: null,
      toolCalls: [
        { id: "call_seed_0", name: "bash", arguments: '{"command":"ls"}' },
        { id: "call_seed_1", name: "bash", arguments: '{"command":"pwd"}' },
      ],
      finishReason: "tool_calls",
      usage: { prompt_tokens: 30, completion_tokens: 12 },
    });
    const [sent] = ai.calls;
    expect(sent!.model).toBe(MODEL);
    expect(sent!.inputs).toMatchObject({ stream: false, max_tokens: 4096, tools });
  });

  it("reads OpenAI's form: choices with tool_calls and string arguments", async () => {
    const { result } = await call(
      [
        {
          id: "chatcmpl-1",
          object: "chat.completion",
          created: 1,
          model: "@cf/openai/gpt-oss-120b",
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: null,
                tool_calls: [
                  { id: "chatcmpl-tool-7", type: "function", function: { name: "read", arguments: '{"path":"a"}' } },
                ],
              },
              finish_reason: "tool_calls",
            },
          ],
          usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
        },
      ],
      { stream: false },
    );
    expect(turnOf(result).toolCalls).toEqual([{ id: "chatcmpl-tool-7", name: "read", arguments: '{"path":"a"}' }]);
  });

  it("streams the binding's own form: text pieces, a tool-call chunk, usage last", async () => {
    const { result, deltas } = await call([
      {
        sse: sseOf([
          { response: "Let me ", p: "abc" },
          { response: "look." },
          { response: "", tool_calls: [{ name: "read", arguments: { path: "/etc/hostname" } }] },
          { response: "", usage: { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49 } },
        ]),
      },
    ]);
    expect(deltas).toBe("Let me look.");
    expect(turnOf(result)).toMatchObject({
      content: "Let me look.",
      toolCalls: [{ name: "read", arguments: '{"path":"/etc/hostname"}' }],
      finishReason: "tool_calls",
      usage: { prompt_tokens: 40, completion_tokens: 9 },
    });
  });

  it("streams OpenAI's form: a call's arguments in pieces by index, then a closer that carries nothing", async () => {
    const chunk = (delta: unknown, finish: string | null = null) => ({
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    const { result } = await call([
      {
        sse: sseOf([
          chunk({ role: "assistant", content: "" }),
          chunk({ tool_calls: [{ index: 0, id: "t1", type: "function", function: { name: "bash" } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"command":' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: ' "uptime"}' } }] }),
          chunk({ tool_calls: [{ id: null, type: null, function: { name: null } }] }),
          chunk({}, "tool_calls"),
        ]),
      },
    ]);
    expect(turnOf(result).toolCalls).toEqual([{ id: "t1", name: "bash", arguments: '{"command": "uptime"}' }]);
  });

  it("takes a whole answer where a stream was asked for (models that cannot stream)", async () => {
    const { result, deltas } = await call([{ response: "no stream here" }]);
    expect(turnOf(result).content).toBe("no stream here");
    expect(deltas).toBe("no stream here");
  });

  it("reads a call written as text by a Llama model (no native call)", async () => {
    const { result } = await call([{ response: '{"name": "bash", "parameters": {"command": "df"}}' }], {
      stream: false,
    });
    expect(turnOf(result)).toMatchObject({ toolCalls: [{ name: "bash" }], textProtocol: true });
  });

  it("sends the history as the binding takes it: no null content, tool results named", async () => {
    const { ai } = await call([{ response: "ok" }], {}, [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c1", content: "done" },
    ] as never);
    const messages = ai.calls[0]!.inputs.messages as Record<string, unknown>[];
    expect(messages[1]).toMatchObject({ role: "assistant", content: "" });
    expect(messages[2]).toEqual({ role: "tool", tool_call_id: "c1", content: "done", name: "bash" });
  });

  it("passes the AI Gateway id and the token cap", async () => {
    const { ai } = await call([{ response: "ok" }], { gatewayId: "edge-gw", maxTokens: 777 });
    expect(ai.calls[0]!.options).toMatchObject({ gateway: { id: "edge-gw" } });
    expect(ai.calls[0]!.inputs.max_tokens).toBe(777);
  });

  it("retries out-of-capacity (3040) errors, then answers", async () => {
    const busy = new Error("3040: Capacity temporarily exceeded, please try again.");
    const { result, ai } = await call([busy, busy, { response: "finally" }]);
    expect(turnOf(result).content).toBe("finally");
    expect(ai.calls).toHaveLength(3);
  });

  it("does not retry errors that will not change: an unknown model, the daily allocation", async () => {
    for (const [message, status] of [
      ["5007: No such model @cf/nope or task", 400],
      ["3036: You have used up your daily free allocation of 10,000 neurons.", 429],
    ] as const) {
      const { result, ai } = await call([new Error(message), { response: "never" }]);
      expect(result).toMatchObject({ ok: false, error: { kind: "http", status } });
      expect(ai.calls).toHaveLength(1);
    }
  });

  it("explains the local dev case: the binding needs a login", async () => {
    const { result, ai } = await call([new Error("Binding AI needs to be run remotely")]);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.message).toContain("wrangler login");
    expect(ai.calls).toHaveLength(1);
  });

  it("ends a stream that stalls as a timeout", async () => {
    const { result } = await call([{ sse: sseOf([{ response: "slow" }]), stallAfter: 1 }], {
      timeoutMs: 200,
      maxRetries: 0,
    });
    expect(result).toMatchObject({ ok: false, error: { kind: "timeout" } });
  });

  it("speaks the text protocol: no tools sent, the prompt describes them", async () => {
    const { result, ai } = await call([{ response: '{"tool": "read", "args": {"path": "x"}}' }], {
      toolProtocol: "text",
    });
    expect(turnOf(result).toolCalls).toMatchObject([{ name: "read", arguments: '{"path":"x"}' }]);
    expect(ai.calls[0]!.inputs.tools).toBeUndefined();
    expect(JSON.stringify(ai.calls[0]!.inputs.messages)).toContain("## Tools");
  });
});
