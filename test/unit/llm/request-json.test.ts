import { afterEach, describe, expect, it, vi } from "vitest";
import { chatRequestJson, memoByIdentity } from "../../../durable-objects/conversation/llm/index.js";

afterEach(() => vi.restoreAllMocks());

const tools = [{ type: "function", function: { name: "bash", description: "Run", parameters: { type: "object" } } }];

describe("chatRequestJson", () => {
  it("is the request's JSON: the same value JSON.stringify makes of it", () => {
    const body = {
      model: "m",
      messages: [
        { role: "user", content: 'say "hi" ✓\n' },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }],
        },
        { role: "tool", tool_call_id: "c", content: "x", extra: undefined },
      ],
      tools,
      tool_choice: "auto",
      temperature: undefined,
      stream: true,
      stream_options: { include_usage: true },
    };
    expect(JSON.parse(chatRequestJson(body))).toEqual(JSON.parse(JSON.stringify(body)));
    expect(JSON.parse(chatRequestJson({ messages: [] }))).toEqual({ messages: [] });
    expect(JSON.parse(chatRequestJson({ messages: [{ role: "user", content: "x" }], stream: false }))).toEqual({
      messages: [{ role: "user", content: "x" }],
      stream: false,
    });
  });

  it("serializes each message and tool list once, however many requests carry it", () => {
    const history: object[] = [{ role: "user", content: "one" }];
    chatRequestJson({ model: "m", messages: history, tools });
    history.push({ role: "assistant", content: "two" }, { role: "user", content: "three" });
    const stringify = vi.spyOn(JSON, "stringify");
    const json = chatRequestJson({ model: "m", messages: history, tools });
    // the two new messages and the request's own fields; not the first message, not the tools
    expect(stringify).toHaveBeenCalledTimes(3);
    stringify.mockRestore();
    expect(JSON.parse(json)).toEqual({ model: "m", messages: history, tools });
  });
});

describe("memoByIdentity", () => {
  it("makes a value once per key object, and again for an equal but different object", () => {
    const make = vi.fn((xs: number[]) => xs.length);
    const lengthOf = memoByIdentity(make);
    const a = [1, 2];
    expect([lengthOf(a), lengthOf(a), lengthOf([1, 2])]).toEqual([2, 2, 2]);
    expect(make).toHaveBeenCalledTimes(2);
  });

  it("remembers falsy values too", () => {
    const make = vi.fn(() => 0);
    const zero = memoByIdentity(make);
    const key = {};
    zero(key);
    zero(key);
    expect(make).toHaveBeenCalledTimes(1);
  });
});
