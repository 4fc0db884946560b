import { describe, expect, it } from "vitest";
import { extractTextToolCalls, withTextToolCalls } from "../../../durable-objects/conversation/llm/text-tool-calls.js";

// Which objects count as a call and which do not, one rule each; text-tool-calls.test.ts has the
// ordinary shapes, text-tool-calls-scan.test.ts how calls are found in a reply.
const tools = ["bash", "read", "web_search"];
const NOT_A_CALL = '<tool_call> block is not a tool call (expected {"name": …, "arguments": {…}})';
const tagged = (body: string) => extractTextToolCalls(`<tool_call>${body}</tool_call>`, tools);

describe("call keys and names", () => {
  it("takes tool_name with input, and OpenAI's written shape with type and id, whole", () => {
    expect(extractTextToolCalls('{"tool_name": "read", "input": {"path": "a"}}', tools)).toEqual({
      calls: [{ name: "read", arguments: '{"path":"a"}' }],
      malformed: null,
      text: "",
    });
    const openai = extractTextToolCalls(
      'Reading.\n{"type": "function", "id": "call_1", "function": {"name": "read", "arguments": {"path": "a"}}}',
      tools,
    );
    expect(openai).toEqual({ calls: [{ name: "read", arguments: '{"path":"a"}' }], malformed: null, text: "Reading." });
  });

  it("refuses a name that is not 1 to 64 letters, digits, _ or -", () => {
    for (const name of ["read file", "read!", "ünicode", "a".repeat(65), ""]) {
      expect(tagged(`{"name": "${name}", "arguments": {}}`)).toEqual({ calls: [], malformed: NOT_A_CALL, text: "" });
    }
    const longest = "a".repeat(64);
    expect(tagged(`{"name": "${longest}", "arguments": {}}`).calls).toEqual([{ name: longest, arguments: "{}" }]);
  });

  it("refuses a block without a name, with a key that is not a call key, or that is no object", () => {
    for (const body of [
      '{"arguments": {}}',
      '{"name": 5, "arguments": {}}',
      '{"name": "read", "arguments": {}, "extra": 1}',
      '{"foo": 1}',
      "null",
      '"read"',
      "[]",
      '[{"name": "read", "arguments": {}}, 5]',
      '[{"name": "read", "arguments": {}}, {"name": "read file"}]',
    ]) {
      expect(tagged(body)).toEqual({ calls: [], malformed: NOT_A_CALL, text: "" });
    }
  });

  it("takes calls wrapped in a tool_calls list", () => {
    expect(tagged('{"tool_calls": [{"name": "read", "arguments": {}}, {"name": "bash"}]}').calls).toEqual([
      { name: "read", arguments: "{}" },
      { name: "bash", arguments: "{}" },
    ]);
  });

  it("reads null arguments as {}", () => {
    expect(extractTextToolCalls('{"name": "read", "arguments": null}', tools).calls).toEqual([
      { name: "read", arguments: "{}" },
    ]);
  });
});

describe("an unknown name in an explicit block", () => {
  it("counts when the object is shaped as a call: arguments, a tool key or a function object", () => {
    expect(tagged('{"tool": "lookup"}').calls).toEqual([{ name: "lookup", arguments: "{}" }]);
    expect(tagged('{"function": {"name": "lookup"}}').calls).toEqual([{ name: "lookup", arguments: "{}" }]);
    expect(tagged('{"name": "lookup", "arguments": {"q": 1}}').calls).toEqual([
      { name: "lookup", arguments: '{"q":1}' },
    ]);
  });

  it("does not count as a lone name, nor with a function field that is not an object", () => {
    for (const body of [
      '{"name": "lookup"}',
      '{"name": "lookup", "function": "oops"}',
      '{"name": "lookup", "function": null}',
      '{"name": "lookup", "function": [1]}',
    ]) {
      expect(tagged(body)).toEqual({ calls: [], malformed: NOT_A_CALL, text: "" });
    }
  });
});

describe("<tool_call> bodies", () => {
  it("takes a block whose closing tag never came (a reply cut off)", () => {
    expect(extractTextToolCalls('Reading.\n<tool_call>{"name": "read", "arguments": {}}', tools)).toEqual({
      calls: [{ name: "read", arguments: "{}" }],
      malformed: null,
      text: "Reading.",
    });
  });

  it("trims any whitespace around the JSON, not only JSON's own", () => {
    expect(tagged('\u00a0{"name": "read", "arguments": {}}\u00a0').calls).toEqual([{ name: "read", arguments: "{}" }]);
  });

  it("unwraps a body that is one code fence, on its own lines or inline", () => {
    const want = [{ name: "read", arguments: '{"path":"a"}' }];
    expect(tagged('\n```json\n{"name": "read", "arguments": {"path": "a"}}\n```\n').calls).toEqual(want);
    expect(tagged('\n\n  ```JSON\n{"name": "read",\n "arguments": {"path": "a"}}\n```  \n\n').calls).toEqual(want);
    expect(tagged('```{"name": "read", "arguments": {"path": "a"}}```').calls).toEqual(want);
    expect(tagged('```tool_call {"name": "read", "arguments": {"path": "a"}}```').calls).toEqual(want);
  });

  it("does not unwrap a fence with text before or after it", () => {
    for (const body of [
      'note ```json\n{"name": "read", "arguments": {}}\n```',
      '```json\n{"name": "read", "arguments": {}}\n``` trailing',
    ]) {
      const r = tagged(body);
      expect(r.calls).toEqual([]);
      expect(r.malformed).toMatch(/^<tool_call> block is not valid JSON \(/);
    }
  });
});

describe("withTextToolCalls: the turn it gives", () => {
  it("only notes a malformed attempt, leaving the rest of the turn as it was", () => {
    const turn = { content: 'Let me run it: {"tool": "bash", "args": {', toolCalls: [], finishReason: "stop" };
    expect(withTextToolCalls(turn, tools, "s")).toStrictEqual({
      ...turn,
      malformedToolCall: "tool call for 'bash' is not valid JSON (unbalanced braces)",
    });
  });

  it("has no content when the reply was nothing but calls", () => {
    const turn = withTextToolCalls(
      { content: '\n{"tool": "read", "args": {"path": "a"}}\n', toolCalls: [], finishReason: "stop" },
      tools,
      "s",
    );
    expect(turn).toStrictEqual({
      content: null,
      toolCalls: [{ id: "call_s_0", name: "read", arguments: '{"path":"a"}' }],
      finishReason: "tool_calls",
      textProtocol: true,
    });
  });
});
