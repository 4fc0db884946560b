import { describe, expect, it } from "vitest";
import {
  assembleChunks,
  fromCompletion,
  StreamAssembler,
} from "../../../durable-objects/conversation/llm/stream-assembler.js";

// Recorded-style chunk sequences: the shapes real OpenAI-compatible servers send.
const base = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m" };
const chunk = (
  delta: Record<string, unknown> | undefined,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
) => ({
  ...base,
  choices: [{ index: 0, ...(delta === undefined ? {} : { delta }), finish_reason: finish }],
  ...extra,
});

describe("StreamAssembler", () => {
  it("assembles OpenAI's own stream: role, content pieces, finish, usage-only chunk", () => {
    const a = new StreamAssembler("s");
    const deltas = [
      a.push(chunk({ role: "assistant", content: "" })),
      a.push(chunk({ content: "Hello" })),
      a.push(chunk({ content: ", world" })),
      a.push(chunk({}, "stop")),
      a.push({ ...base, choices: [], usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } }),
    ];
    expect(deltas).toEqual(["", "Hello", ", world", "", ""]);
    expect(a.finish()).toEqual({
      content: "Hello, world",
      toolCalls: [],
      finishReason: "stop",
      usage: { prompt_tokens: 12, completion_tokens: 3 },
    });
    expect(a.sawChoice).toBe(true);
  });

  it("assembles tool calls by index with name first and arguments in pieces, several calls", () => {
    const turn = assembleChunks(
      [
        chunk({ role: "assistant", content: null }),
        chunk({
          tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "read", arguments: "" } }],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'th": "/etc/hostname"}' } }] }),
        chunk({
          tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "bash", arguments: "" } }],
        }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: '{"command":' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: ' "ls"}' } }] }),
        chunk({}, "tool_calls"),
      ],
      "seed",
    );
    expect(turn).toEqual({
      content: null,
      finishReason: "tool_calls",
      toolCalls: [
        { id: "call_a", name: "read", arguments: '{"path": "/etc/hostname"}' },
        { id: "call_b", name: "bash", arguments: '{"command": "ls"}' },
      ],
    });
  });

  it("reads tool calls finished with finish_reason stop (or none) as tool_calls; keeps length", () => {
    const calls = [
      chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "bash", arguments: '{"command":"ls"}' } }] }),
    ];
    expect(assembleChunks([...calls, chunk({}, "stop")], "s").finishReason).toBe("tool_calls");
    expect(assembleChunks(calls, "s").finishReason).toBe("tool_calls");
    expect(assembleChunks([...calls, chunk({}, "length")], "s").finishReason).toBe("length");
    expect(assembleChunks([...calls, chunk({}, "stop")], "s").toolCalls).toHaveLength(1);
  });

  it("stringifies arguments delivered as an object", () => {
    const turn = assembleChunks(
      [
        chunk({
          tool_calls: [{ index: 0, id: "c1", function: { name: "read", arguments: { path: "a.txt", limit: 5 } } }],
        }),
        chunk({}, "tool_calls"),
      ],
      "s",
    );
    expect(turn.toolCalls[0]!.arguments).toBe('{"path":"a.txt","limit":5}');
    expect(JSON.parse(turn.toolCalls[0]!.arguments)).toEqual({ path: "a.txt", limit: 5 });
  });

  it("gives calls with empty or missing ids a deterministic id from the seed", () => {
    const chunks = [
      chunk({ tool_calls: [{ index: 0, id: "", function: { name: "read", arguments: "{}" } }] }),
      chunk({ tool_calls: [{ index: 1, function: { name: "bash", arguments: "{}" } }] }),
      chunk({}, "tool_calls"),
    ];
    const first = assembleChunks(chunks, "conv1_3");
    const retried = assembleChunks(chunks, "conv1_3");
    expect(first.toolCalls.map((c) => c.id)).toEqual(["call_conv1_3_0", "call_conv1_3_1"]);
    expect(retried.toolCalls.map((c) => c.id)).toEqual(first.toolCalls.map((c) => c.id));
  });

  it("makes duplicated provider ids unique (tool results are matched by id)", () => {
    const turn = assembleChunks(
      [
        chunk({ tool_calls: [{ index: 0, id: "same", function: { name: "read", arguments: "{}" } }] }),
        chunk({ tool_calls: [{ index: 1, id: "same", function: { name: "bash", arguments: "{}" } }] }),
      ],
      "s",
    );
    expect(turn.toolCalls.map((c) => c.id)).toEqual(["same", "call_s_1"]);
  });

  it("treats tool-call deltas without index by order", () => {
    const turn = assembleChunks(
      [
        chunk({ tool_calls: [{ id: "c1", function: { name: "read", arguments: '{"path":' } }] }),
        chunk({ tool_calls: [{ function: { arguments: '"x"}' } }] }),
        chunk({ tool_calls: [{ id: "c2", function: { name: "bash", arguments: "" } }] }),
        chunk({ tool_calls: [{ function: { arguments: '{"command":"ls"}' } }] }),
        chunk({}, "tool_calls"),
      ],
      "s",
    );
    expect(turn.toolCalls).toEqual([
      { id: "c1", name: "read", arguments: '{"path":"x"}' },
      { id: "c2", name: "bash", arguments: '{"command":"ls"}' },
    ]);
  });

  it("splits calls that all arrive at index 0 with different ids (seen from some servers)", () => {
    const turn = assembleChunks(
      [
        chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "read", arguments: '{"path":"a"}' } }] }),
        chunk({ tool_calls: [{ index: 0, id: "c2", function: { name: "read", arguments: '{"path":"b"}' } }] }),
      ],
      "s",
    );
    expect(turn.toolCalls.map((c) => [c.id, c.arguments])).toEqual([
      ["c1", '{"path":"a"}'],
      ["c2", '{"path":"b"}'],
    ]);
  });

  it("takes several calls in one chunk, names split or repeated across deltas", () => {
    const turn = assembleChunks(
      [
        chunk({
          tool_calls: [
            { index: 0, id: "c1", function: { name: "git_", arguments: "" } },
            { index: 1, id: "c2", function: { name: "bash", arguments: '{"command":"pwd"}' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { name: "log", arguments: "{}" } }] }),
        chunk({ tool_calls: [{ index: 1, function: { name: "bash", arguments: "" } }] }),
      ],
      "s",
    );
    expect(turn.toolCalls.map((c) => c.name)).toEqual(["git_log", "bash"]);
  });

  it("ignores chunks with no delta, non-objects, and other choices", () => {
    const turn = assembleChunks(
      [
        { ...base, choices: [{ index: 0, finish_reason: null }] },
        null,
        "garbage",
        chunk({ content: "ok" }),
        { ...base, choices: [{ index: 1, delta: { content: "second choice" }, finish_reason: null }] },
        chunk(undefined, "stop"),
      ],
      "s",
    );
    expect(turn).toEqual({ content: "ok", toolCalls: [], finishReason: "stop" });
  });

  it("takes usage carried on the last choice chunk, and input/output token names", () => {
    const turn = assembleChunks(
      [chunk({ content: "x" }, "stop", { usage: { input_tokens: 4, output_tokens: 1 } })],
      "s",
    );
    expect(turn.usage).toEqual({ prompt_tokens: 4, completion_tokens: 1 });
  });

  it("takes a full message put in a stream chunk when no delta came before", () => {
    const turn = assembleChunks(
      [{ ...base, choices: [{ index: 0, message: { role: "assistant", content: "whole" }, finish_reason: "stop" }] }],
      "s",
    );
    expect(turn.content).toBe("whole");
  });

  it("reads legacy function_call deltas as one tool call", () => {
    const turn = assembleChunks(
      [
        chunk({ function_call: { name: "bash", arguments: '{"comm' } }),
        chunk({ function_call: { arguments: 'and":"ls"}' } }, "function_call"),
      ],
      "s",
    );
    expect(turn.toolCalls).toEqual([{ id: "call_s_0", name: "bash", arguments: '{"command":"ls"}' }]);
  });

  it("reports a usage-only stream as having no choice", () => {
    const a = new StreamAssembler("s");
    a.push({ ...base, choices: [], usage: { prompt_tokens: 1, completion_tokens: 0 } });
    expect(a.sawChoice).toBe(false);
  });
});

describe("fromCompletion", () => {
  it("converts a non-streamed completion with tool calls", () => {
    const result = fromCompletion(
      {
        id: "x",
        object: "chat.completion",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                { id: "", type: "function", function: { name: "read", arguments: { path: "a" } } },
                { id: "c2", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
              ],
            },
            finish_reason: "stop",
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      },
      "seed",
    );
    expect(result).toEqual({
      ok: true,
      turn: {
        content: null,
        finishReason: "tool_calls",
        usage: { prompt_tokens: 10, completion_tokens: 5 },
        toolCalls: [
          { id: "call_seed_0", name: "read", arguments: '{"path":"a"}' },
          { id: "c2", name: "bash", arguments: '{"command":"ls"}' },
        ],
      },
    });
  });

  it("converts plain text, and text given as parts", () => {
    const plain = fromCompletion(
      { choices: [{ message: { role: "assistant", content: "hi" }, finish_reason: "stop" }] },
      "s",
    );
    expect(plain).toEqual({ ok: true, turn: { content: "hi", toolCalls: [], finishReason: "stop" } });
    const parts = fromCompletion(
      {
        choices: [
          {
            message: {
              content: [
                { type: "text", text: "a" },
                { type: "text", text: "b" },
              ],
            },
          },
        ],
      },
      "s",
    );
    expect(parts.ok && parts.turn.content).toBe("ab");
  });

  it("returns an error value for things that are not completions", () => {
    expect(fromCompletion("nope", "s").ok).toBe(false);
    expect(fromCompletion({ choices: [] }, "s")).toEqual({ ok: false, error: "response has no choices" });
    expect(fromCompletion({ error: { message: "overloaded" } }, "s")).toEqual({
      ok: false,
      error: "provider error: overloaded",
    });
  });
});
