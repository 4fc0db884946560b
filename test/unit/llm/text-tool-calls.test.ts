import { describe, expect, it } from "vitest";
import { toolCallCorrectionRequest } from "../../../durable-objects/conversation/core/index.js";
import {
  isTextProtocolToolResult,
  textProtocolSystemSection,
  toTextProtocolMessages,
} from "../../../durable-objects/conversation/llm/text-protocol-prompts.js";
import { extractTextToolCalls, withTextToolCalls } from "../../../durable-objects/conversation/llm/text-tool-calls.js";

const tools = ["bash", "read", "web_search"];

describe("extractTextToolCalls finds calls", () => {
  it("a bare {tool, args} object", () => {
    expect(extractTextToolCalls('{"tool": "web_search", "args": {"query": "python async"}}', tools)).toEqual({
      calls: [{ name: "web_search", arguments: '{"query":"python async"}' }],
      malformed: null,
      text: "",
    });
  });

  it("{name, arguments} and {name, parameters} objects, with prose around", () => {
    const r = extractTextToolCalls('Let me check.\n{"name": "bash", "arguments": {"command": "uptime"}}', tools);
    expect(r.calls).toEqual([{ name: "bash", arguments: '{"command":"uptime"}' }]);
    expect(r.text).toBe("Let me check.");
    const p = extractTextToolCalls('{"name": "read", "parameters": {"path": "a.txt"}}', tools);
    expect(p.calls).toEqual([{ name: "read", arguments: '{"path":"a.txt"}' }]);
  });

  it("inside a ```json fence", () => {
    const r = extractTextToolCalls(
      'I will read it:\n```json\n{"tool": "read", "args": {"path": "/etc/hostname"}}\n```\n',
      tools,
    );
    expect(r.calls).toEqual([{ name: "read", arguments: '{"path":"/etc/hostname"}' }]);
    expect(r.text).toBe("I will read it:");
    expect(r.malformed).toBeNull();
  });

  it("one or several <tool_call> blocks", () => {
    const r = extractTextToolCalls(
      'Checking both.\n<tool_call>\n{"name": "bash", "arguments": {"command": "uptime"}}\n</tool_call>\n<tool_call>{"name": "read", "arguments": {"path": "x"}}</tool_call>',
      tools,
    );
    expect(r.calls).toEqual([
      { name: "bash", arguments: '{"command":"uptime"}' },
      { name: "read", arguments: '{"path":"x"}' },
    ]);
    expect(r.text).toBe("Checking both.");
  });

  it("a <tool_call> with an unknown name still counts (the tag is explicit; the loop answers 'not found')", () => {
    const r = extractTextToolCalls('<tool_call>{"name": "git_status", "arguments": {}}</tool_call>', tools);
    expect(r.calls).toEqual([{ name: "git_status", arguments: "{}" }]);
  });

  it("an unknown name when the whole reply is the call", () => {
    const r = extractTextToolCalls('{"tool": "git_status", "args": {}}', tools);
    expect(r.calls).toEqual([{ name: "git_status", arguments: "{}" }]);
  });

  it("several bare calls, a JSON array, Mistral's [TOOL_CALLS] and OpenAI's written shape", () => {
    const two = extractTextToolCalls(
      '{"tool": "bash", "args": {"command": "a"}}\n{"tool": "bash", "args": {"command": "b"}}',
      tools,
    );
    expect(two.calls.map((c) => c.arguments)).toEqual(['{"command":"a"}', '{"command":"b"}']);
    const mistral = extractTextToolCalls(
      '[TOOL_CALLS][{"name": "read", "arguments": {"path": "a"}}, {"name": "bash", "arguments": {"command": "b"}}]',
      tools,
    );
    expect(mistral.calls.map((c) => c.name)).toEqual(["read", "bash"]);
    expect(mistral.text).toBe("");
    const openai = extractTextToolCalls(
      '{"type": "function", "function": {"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}}',
      tools,
    );
    expect(openai.calls).toEqual([{ name: "bash", arguments: '{"command": "ls"}' }]);
  });

  it("arguments given as a string stay as written; missing arguments are {}", () => {
    expect(
      extractTextToolCalls('{"tool": "bash", "args": "{\\"command\\": \\"ls\\"}"}', tools).calls[0]!.arguments,
    ).toBe('{"command": "ls"}');
    expect(extractTextToolCalls('{"tool": "bash"}', tools).calls[0]!.arguments).toBe("{}");
  });
});

describe("extractTextToolCalls leaves prose alone", () => {
  const untouched = (content: string) => {
    const r = extractTextToolCalls(content, tools);
    expect(r.calls).toEqual([]);
    expect(r.malformed).toBeNull();
    expect(r.text).toBe(content.trim());
  };

  it("braces in prose, code and templates", () => {
    untouched("Use {name} as a placeholder, and {} for an empty object.");
    untouched("function f() { return { a: 1 }; }");
    untouched("In Python: d = {'a': 1}");
    untouched("The set {1, 2, 3} has three elements.");
  });

  it("JSON data that is not a call", () => {
    untouched('The API returned {"name": "Alice", "age": 31}.');
    untouched('Config example:\n```json\n{"name": "my-app", "version": "1.0.0"}\n```');
    untouched(
      'A tool-ish object for an unknown tool mid-prose: {"name": "deploy", "arguments": {"env": "prod"}} is what they sent.',
    );
  });

  it("no content at all", () => {
    expect(extractTextToolCalls(null, tools)).toEqual({ calls: [], malformed: null, text: "" });
  });
});

describe("extractTextToolCalls flags malformed attempts", () => {
  it("a bare call with broken JSON", () => {
    const r = extractTextToolCalls('{"tool": "bash", "args": {"command": "ls"}', tools);
    expect(r.calls).toEqual([]);
    expect(r.malformed).toMatch(/tool call for 'bash' is not valid JSON/);
  });

  it("single quotes (Python dict) for a known tool", () => {
    const r = extractTextToolCalls("{'tool': 'read', 'args': {'path': 'a.txt'}}", tools);
    expect(r.malformed).toMatch(/'read' is not valid JSON/);
  });

  it("a fenced call with a trailing comma", () => {
    const r = extractTextToolCalls('```json\n{"name": "read", "arguments": {"path": "a",}}\n```', tools);
    expect(r.malformed).toMatch(/'read' is not valid JSON/);
  });

  it("a <tool_call> block that does not parse, next to one that does", () => {
    const r = extractTextToolCalls(
      '<tool_call>{"name": "bash", "arguments": {"command": }</tool_call><tool_call>{"name": "read", "arguments": {"path": "a"}}</tool_call>',
      tools,
    );
    expect(r.malformed).toMatch(/<tool_call> block is not valid JSON/);
    expect(r.calls).toEqual([{ name: "read", arguments: '{"path":"a"}' }]);
  });
});

describe("withTextToolCalls", () => {
  it("fills toolCalls from the text with seeded ids and marks the turn", () => {
    const turn = withTextToolCalls(
      { content: 'Sure.\n{"tool": "bash", "args": {"command": "ls"}}', toolCalls: [], finishReason: "stop" },
      tools,
      "c1_2",
    );
    expect(turn).toEqual({
      content: "Sure.",
      toolCalls: [{ id: "call_c1_2_0", name: "bash", arguments: '{"command":"ls"}' }],
      finishReason: "tool_calls",
      textProtocol: true,
    });
  });

  it("leaves native calls and plain answers untouched; reports malformed attempts", () => {
    const native = {
      content: '{"tool": "bash", "args": {}}',
      toolCalls: [{ id: "a", name: "read", arguments: "{}" }],
      finishReason: "tool_calls",
    };
    expect(withTextToolCalls(native, tools, "s")).toBe(native);
    const plain = { content: "All done.", toolCalls: [], finishReason: "stop" };
    expect(withTextToolCalls(plain, tools, "s")).toBe(plain);
    const broken = withTextToolCalls(
      { content: '{"tool": "bash", "args": {', toolCalls: [], finishReason: "stop" },
      tools,
      "s",
    );
    expect(broken.toolCalls).toEqual([]);
    expect(broken.malformedToolCall).toMatch(/'bash'/);
    expect(broken.content).toBe('{"tool": "bash", "args": {');
  });
});

describe("text-protocol prompts", () => {
  it("describes the protocol and lists the tools with their schemas", () => {
    const section = textProtocolSystemSection([
      { name: "bash", description: "Run a command", parameters: { type: "object", required: ["command"] } },
    ]);
    expect(section).toContain('{"tool": "<tool name>", "args":');
    expect(section).toContain("<tool_call>");
    expect(section).toContain(
      '- bash: Run a command\n  parameters (JSON Schema): {"type":"object","required":["command"]}',
    );
  });

  it("the correction request names the problem, the expected shape and the tools", () => {
    const text = toolCallCorrectionRequest("tool call for 'bash' is not valid JSON (Unexpected end)", ["bash", "read"]);
    expect(text).toContain("could not be read: tool call for 'bash' is not valid JSON (Unexpected end).");
    expect(text).toContain('{"tool": "<tool name>", "args": {...}}');
    expect(text).toContain("Available tools: bash, read.");
  });

  it("rewrites a native history for a text-protocol model", () => {
    const out = toTextProtocolMessages(
      [
        { role: "system", content: "You are helpful." },
        { role: "user", content: "uptime?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "c1", type: "function", function: { name: "bash", arguments: '{"command":"uptime"}' } },
            { id: "c2", type: "function", function: { name: "read", arguments: '{"path":"a"}' } },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: "up 3 days" },
        { role: "tool", tool_call_id: "c2", content: "hello" },
      ],
      [{ name: "bash", description: "Run", parameters: {} }],
    );
    expect(out).toHaveLength(4);
    expect(out[0]!.role).toBe("system");
    expect(String(out[0]!.content)).toMatch(/^You are helpful\.\n\n## Tools/);
    expect(out[2]).toEqual({
      role: "assistant",
      content:
        '<tool_call>{"tool":"bash","args":{"command":"uptime"}}</tool_call>\n<tool_call>{"tool":"read","args":{"path":"a"}}</tool_call>',
    });
    expect(out[3]).toEqual({
      role: "user",
      content: "Tool result for bash (c1):\nup 3 days\n\nTool result for read (c2):\nhello",
    });
    expect(isTextProtocolToolResult(String(out[3]!.content))).toBe(true);
  });

  it("adds a system message when there was none", () => {
    const out = toTextProtocolMessages([{ role: "user", content: "hi" }], []);
    expect(out[0]!.role).toBe("system");
    expect(out[1]).toEqual({ role: "user", content: "hi" });
  });
});
