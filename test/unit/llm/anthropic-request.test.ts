import { describe, expect, it } from "vitest";
import {
  type AnthropicRequestParams,
  anthropicRequestJson,
  anthropicToolId,
  type ChatMessage,
  type ChatTool,
} from "../../../durable-objects/conversation/llm/index.js";
import { anthropicProblem } from "../../../scripted-llm/anthropic-checks.js";

// The core's history as a Messages API body: blocks, merged turns, breakpoints, and the repairs
// the real API needs. Every body built here must also pass the scripted model's copy of the
// API's request rules.

const tools: ChatTool[] = [
  { type: "function", function: { name: "bash", description: "Run", parameters: { type: "object", properties: {} } } },
  { type: "function", function: { name: "read", parameters: { type: "object", properties: {} } } },
];

const call = (id: string, name: string, args: string) => ({
  id,
  type: "function" as const,
  function: { name, arguments: args },
});

const history: ChatMessage[] = [
  { role: "system", content: "You run tools." },
  { role: "user", content: "check the disk" },
  {
    role: "assistant",
    content: "Looking.",
    tool_calls: [call("call_a", "bash", '{"command":"df"}'), call("call_b", "read", '{"path":"x"}')],
  },
  { role: "tool", tool_call_id: "call_a", content: "ok 10%" },
  { role: "tool", tool_call_id: "call_b", content: "Error: Tool 'read' failed: nope" },
  { role: "user", content: "[edgeloop] The tool loop has stopped." },
];

function build(messages: ChatMessage[], extra: Partial<AnthropicRequestParams> = {}) {
  const json = anthropicRequestJson({
    model: "claude-x",
    maxTokens: 100,
    messages,
    tools,
    stream: true,
    caching: true,
    ...extra,
  });
  const body = JSON.parse(json);
  const problem = anthropicProblem(body, { "x-api-key": "k", "anthropic-version": "2023-06-01" });
  expect(problem).toBeNull();
  return body;
}

describe("anthropicRequestJson", () => {
  it("puts the system prompt on top, calls in tool_use blocks and a round's results in one user turn", () => {
    const body = build(history);
    expect(body.model).toBe("claude-x");
    expect(body.max_tokens).toBe(100);
    expect(body.stream).toBe(true);
    expect(body.system).toEqual([{ type: "text", text: "You run tools.", cache_control: { type: "ephemeral" } }]);
    expect(body.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(body.messages[1].content).toEqual([
      { type: "text", text: "Looking." },
      { type: "tool_use", id: "call_a", name: "bash", input: { command: "df" } },
      { type: "tool_use", id: "call_b", name: "read", input: { path: "x" } },
    ]);
    const results = body.messages[2].content;
    expect(results[0]).toEqual({ type: "tool_result", tool_use_id: "call_a", content: "ok 10%" });
    expect(results[1]).toMatchObject({ type: "tool_result", tool_use_id: "call_b", is_error: true });
    // The loop's note after the results joins the same turn, after them.
    expect(results[2]).toMatchObject({ type: "text", text: "[edgeloop] The tool loop has stopped." });
  });

  it("marks three cache breakpoints: the last tool, the system prompt and the history's last block", () => {
    const body = build(history);
    expect(body.tools[0].cache_control).toBeUndefined();
    expect(body.tools[1]).toEqual({
      name: "read",
      input_schema: { type: "object", properties: {} },
      cache_control: { type: "ephemeral" },
    });
    const last = body.messages[2].content.at(-1);
    expect(last.cache_control).toEqual({ type: "ephemeral" });
    expect(JSON.stringify(body).split('"cache_control"').length - 1).toBe(3);
    // The breakpoint moves with the history; earlier blocks never carry one.
    const next = build([...history, { role: "assistant", content: "Done." }, { role: "user", content: "again" }]);
    expect(JSON.stringify(next.messages.slice(0, -1))).not.toContain("cache_control");
    expect(next.messages.at(-1).content[0].cache_control).toEqual({ type: "ephemeral" });
  });

  it("sends no breakpoints with caching off", () => {
    expect(JSON.stringify(build(history, { caching: false }))).not.toContain("cache_control");
  });

  it("leaves out empty assistant text and merges the user turns around it", () => {
    const body = build([
      { role: "user", content: "one" },
      { role: "assistant", content: "" },
      { role: "user", content: "two" },
    ]);
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0].content.map((b: { text: string }) => b.text)).toEqual(["one", "two"]);
  });

  it("answers calls whose results never came, so the API does not refuse the history", () => {
    const body = build([
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [call("call_x", "bash", "{}"), call("call_y", "bash", "{}")] },
      { role: "tool", tool_call_id: "call_x", content: "done" },
      { role: "user", content: "what happened?" },
    ]);
    const turn = body.messages[2].content;
    expect(turn[0]).toMatchObject({ type: "tool_result", tool_use_id: "call_y", is_error: true });
    expect(turn[1]).toMatchObject({ type: "tool_result", tool_use_id: "call_x", content: "done" });
    expect(turn[2]).toMatchObject({ type: "text", text: "what happened?" });
  });

  it("fits ids from other providers to the API's pattern, the same at the call and its result", () => {
    expect(anthropicToolId("functions.bash:0")).toBe("functions_bash_0");
    expect(anthropicToolId("toolu_01AbC-d")).toBe("toolu_01AbC-d");
    const body = build([
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [call("functions.bash:0", "bash", "{}")] },
      { role: "tool", tool_call_id: "functions.bash:0", content: "" },
    ]);
    expect(body.messages[1].content[0].id).toBe("functions_bash_0");
    expect(body.messages[2].content[0]).toEqual({
      type: "tool_result",
      tool_use_id: "functions_bash_0",
      content: "(no output)",
      cache_control: { type: "ephemeral" },
    });
  });

  it("keeps arguments that are not a JSON object where the model can see them", () => {
    const body = build([
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [call("c1", "bash", '{"command": "ls'), call("c2", "bash", "")] },
      { role: "tool", tool_call_id: "c1", content: "Error: bad" },
      { role: "tool", tool_call_id: "c2", content: "ok" },
    ]);
    expect(body.messages[1].content[0].input).toEqual({ invalid_arguments: '{"command": "ls' });
    expect(body.messages[1].content[1].input).toEqual({});
  });

  it("maps tool_choice: none, required → any, a named function → tool; auto is the default", () => {
    expect(build(history, { toolChoice: "none" }).tool_choice).toEqual({ type: "none" });
    expect(build(history, { toolChoice: "required" }).tool_choice).toEqual({ type: "any" });
    expect(build(history, { toolChoice: { type: "function", function: { name: "bash" } } }).tool_choice).toEqual({
      type: "tool",
      name: "bash",
    });
    expect(build(history, { toolChoice: "auto" }).tool_choice).toBeUndefined();
  });

  it("serializes each message once: the same objects give the same text, a new history reuses them", () => {
    const first = anthropicRequestJson({
      model: "m",
      maxTokens: 1,
      messages: history,
      tools,
      stream: false,
      caching: false,
    });
    const second = anthropicRequestJson({
      model: "m",
      maxTokens: 1,
      messages: [...history],
      tools,
      stream: false,
      caching: false,
    });
    expect(second).toBe(first);
    expect(JSON.parse(first).stream).toBe(false);
  });
});
