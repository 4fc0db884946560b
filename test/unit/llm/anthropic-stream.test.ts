import { describe, expect, it } from "vitest";
import { AnthropicStreamAssembler, fromAnthropicMessage } from "../../../durable-objects/conversation/llm/index.js";

// Messages API stream events → one turn, in the order and shapes the API sends them.

function assemble(events: unknown[]) {
  const assembler = new AnthropicStreamAssembler("seed");
  const deltas = events.map((e) => assembler.push(e));
  return { turn: assembler.finish(), deltas: deltas.join(""), assembler };
}

const start = (usage: Record<string, number>) => ({
  type: "message_start",
  message: { id: "msg_1", type: "message", role: "assistant", content: [], model: "claude", stop_reason: null, usage },
});
const toolStart = (index: number, id: string, name: string) => ({
  type: "content_block_start",
  index,
  content_block: { type: "tool_use", id, name, input: {} },
});
const json = (index: number, partial_json: string) => ({
  type: "content_block_delta",
  index,
  delta: { type: "input_json_delta", partial_json },
});
const stop = (index: number) => ({ type: "content_block_stop", index });
const end = (stop_reason: string, output_tokens: number) => ({
  type: "message_delta",
  delta: { stop_reason, stop_sequence: null },
  usage: { output_tokens },
});

describe("AnthropicStreamAssembler", () => {
  it("joins text deltas and split input_json_delta pieces of parallel tool_use blocks", () => {
    const { turn, deltas } = assemble([
      start({ input_tokens: 20, output_tokens: 1 }),
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "ping" },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Let me " } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "check." } },
      stop(0),
      toolStart(1, "toolu_01", "bash"),
      json(1, ""),
      json(1, '{"comm'),
      json(1, 'and": "df -h"}'),
      stop(1),
      toolStart(2, "toolu_02", "read"),
      json(2, '{"path":'),
      json(2, ' "/etc/hostname"}'),
      stop(2),
      end("tool_use", 57),
      { type: "message_stop" },
    ]);
    expect(deltas).toBe("Let me check.");
    expect(turn).toEqual({
      content: "Let me check.",
      toolCalls: [
        { id: "toolu_01", name: "bash", arguments: '{"command": "df -h"}' },
        { id: "toolu_02", name: "read", arguments: '{"path": "/etc/hostname"}' },
      ],
      finishReason: "tool_calls",
      usage: { prompt_tokens: 20, completion_tokens: 57 },
    });
  });

  it("counts cached input (written and read) as prompt tokens", () => {
    const { turn } = assemble([
      start({ input_tokens: 5, cache_creation_input_tokens: 100, cache_read_input_tokens: 900, output_tokens: 1 }),
      end("end_turn", 3),
    ]);
    expect(turn.usage).toEqual({ prompt_tokens: 1005, completion_tokens: 3 });
    expect(turn.finishReason).toBe("stop");
    expect(turn.content).toBeNull();
  });

  it("max_tokens reads as length, and a tool call cut off keeps what came of its input", () => {
    const { turn } = assemble([
      start({ input_tokens: 1 }),
      toolStart(0, "toolu_9", "bash"),
      json(0, '{"command": "ech'),
      end("max_tokens", 8),
    ]);
    expect(turn.finishReason).toBe("length");
    expect(turn.toolCalls).toEqual([{ id: "toolu_9", name: "bash", arguments: '{"command": "ech' }]);
  });

  it("skips thinking and other block kinds; a tool_use without deltas keeps its start input", () => {
    const { turn, deltas } = assemble([
      start({ input_tokens: 1 }),
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "hmm" } },
      stop(0),
      {
        type: "content_block_start",
        index: 1,
        content_block: { type: "tool_use", id: "toolu_x", name: "ls", input: { a: 1 } },
      },
      stop(1),
      end("tool_use", 2),
    ]);
    expect(deltas).toBe("");
    expect(turn.content).toBeNull();
    expect(turn.toolCalls).toEqual([{ id: "toolu_x", name: "ls", arguments: '{"a":1}' }]);
  });

  it("gives calls without an id (or a repeated one) stable ids from the seed", () => {
    const { turn } = assemble([
      start({ input_tokens: 1 }),
      toolStart(0, "", "a"),
      toolStart(1, "dup", "b"),
      toolStart(2, "dup", "c"),
    ]);
    expect(turn.toolCalls.map((c) => c.id)).toEqual(["call_seed_0", "dup", "call_seed_2"]);
    expect(turn.finishReason).toBe("tool_calls");
  });

  it("knows a stream without message_start is not a response", () => {
    expect(assemble([{ type: "ping" }]).assembler.sawMessage).toBe(false);
  });
});

describe("fromAnthropicMessage", () => {
  it("reads a non-streamed message the same way", () => {
    const converted = fromAnthropicMessage(
      {
        id: "msg_1",
        type: "message",
        role: "assistant",
        content: [
          { type: "text", text: "Running." },
          { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } },
        ],
        stop_reason: "tool_use",
        usage: { input_tokens: 9, cache_read_input_tokens: 1, output_tokens: 4 },
      },
      "s",
    );
    expect(converted).toEqual({
      ok: true,
      turn: {
        content: "Running.",
        toolCalls: [{ id: "toolu_1", name: "bash", arguments: '{"command":"ls"}' }],
        finishReason: "tool_calls",
        usage: { prompt_tokens: 10, completion_tokens: 4 },
      },
    });
  });

  it("turns an error body into a readable error", () => {
    const converted = fromAnthropicMessage(
      { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
      "s",
    );
    expect(converted).toEqual({ ok: false, error: "provider error: overloaded_error Overloaded" });
  });
});
