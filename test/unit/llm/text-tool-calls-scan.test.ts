import { describe, expect, it } from "vitest";
import { extractTextToolCalls } from "../../../durable-objects/conversation/llm/text-tool-calls.js";

// How calls are found in a reply: fences, bare objects, the scan's bound, what is taken out of the
// text, and which broken attempts are reported. text-tool-calls-shapes.test.ts has what counts as a call.
const tools = ["bash", "read", "web_search"];
const extract = (content: string) => extractTextToolCalls(content, tools);
const names = (content: string) => extract(content).calls.map((c) => c.name);
const READ = '{"tool": "read", "args": {"path": "a"}}';
const readCall = { name: "read", arguments: '{"path":"a"}' };

/** JSON.parse's own message for a text, which a report of a broken call quotes. */
function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`${text} parses`);
}
const brokenCall = (name: string, why: string) => `tool call for '${name}' is not valid JSON (${why})`;

describe("fenced calls", () => {
  it("takes a fence with or without a language, on its own lines or inline, and takes it all out", () => {
    for (const reply of [
      `Reading:\n\`\`\`\n${READ}\n\`\`\``,
      `Reading: \`\`\`json ${READ}\`\`\``,
      `Reading:\n\`\`\`json\n\n  ${READ}\n\`\`\``,
    ]) {
      expect(extract(reply)).toEqual({ calls: [readCall], malformed: null, text: "Reading:" });
    }
  });

  it("takes a fenced array of calls", () => {
    const r = extract('```json\n[{"tool": "read", "args": {}}, {"tool": "bash", "args": {"command": "ls"}}]\n```');
    expect(r).toEqual({
      calls: [
        { name: "read", arguments: "{}" },
        { name: "bash", arguments: '{"command":"ls"}' },
      ],
      malformed: null,
      text: "",
    });
  });

  it("takes an unknown name only when the fence is the whole reply", () => {
    const unknown = '```json\n{"tool": "git_status", "args": {}}\n```';
    expect(names(`\n${unknown}\n`)).toEqual(["git_status"]);
    const inProse = `Example:\n${unknown}`;
    expect(extract(inProse)).toEqual({ calls: [], malformed: null, text: inProse });
  });

  it("collapses the blank lines a removed fence leaves", () => {
    expect(extract(`Before\n\n\`\`\`json\n${READ}\n\`\`\`\n\nAfter`).text).toBe("Before\n\nAfter");
  });
});

describe("bare calls", () => {
  it("reads an unknown name as a call when the reply, trimmed, is nothing else", () => {
    expect(names('  {"tool": "git_status", "args": {}}\n')).toEqual(["git_status"]);
    expect(names('[TOOL_CALLS][{"name": "git_status", "arguments": {}}]')).toEqual(["git_status"]);
    expect(names('[TOOL_CALLS]\n[{"name": "git_status", "arguments": {}}]')).toEqual(["git_status"]);
  });

  it("takes a spaced object and a spaced array whole", () => {
    expect(extract('{ "tool": "read", "args": {"path": "a"} }')).toEqual({
      calls: [readCall],
      malformed: null,
      text: "",
    });
    const list = extract(`[ ${READ}, {"tool": "bash", "args": {}} ]`);
    expect(list).toEqual({ calls: [readCall, { name: "bash", arguments: "{}" }], malformed: null, text: "" });
  });

  it("reads braces and quotes inside strings as text", () => {
    expect(extract('{"tool": "bash", "args": {"command": "echo }"}}').calls).toEqual([
      { name: "bash", arguments: '{"command":"echo }"}' },
    ]);
    expect(extract('{"tool": "bash", "args": {"command": "say \\"}\\" {"}}').calls).toEqual([
      { name: "bash", arguments: '{"command":"say \\"}\\" {"}' },
    ]);
  });

  it("goes on after an object that is not a call, and finds calls before and after a fence", () => {
    expect(names(`{"k": 1} then ${READ}`)).toEqual(["read"]);
    const r = extract(
      `{"tool": "bash", "args": {}} and\n\`\`\`json\n${READ}\n\`\`\`\nthen {"tool": "bash", "args": {}}`,
    );
    expect(r.calls.map((c) => c.name).sort()).toEqual(["bash", "bash", "read"]);
    expect(r.text).toBe("and\n\nthen");
  });

  it("takes Mistral's marker out with the calls after it, and only that marker", () => {
    expect(extract(`[TOOL_CALLS] [${READ}]`).text).toBe("");
    expect(extract(`Note: [TOOL_CALLS] marks calls.\n[TOOL_CALLS][${READ}]`)).toEqual({
      calls: [readCall],
      malformed: null,
      text: "Note: [TOOL_CALLS] marks calls.",
    });
  });
});

describe("the scan's bound", () => {
  const notCalls = (n: number) => '{"k": 1} '.repeat(n);

  it("stops after 200 objects that open like a call", () => {
    expect(names(`${notCalls(199)}${READ}`)).toEqual(["read"]);
    expect(names(`${notCalls(200)}${READ}`)).toEqual([]);
  });

  it("counts neither plain text nor brackets that open no keyed object", () => {
    expect(names(`${"word ".repeat(300)}${READ}`)).toEqual(["read"]);
    expect(names(`${'{x}{"k": 1} '.repeat(150)}${READ}`)).toEqual(["read"]);
    expect(names(`${"[1] [x] {y} ".repeat(100)}${READ}`)).toEqual(["read"]);
  });
});

describe("broken attempts", () => {
  it("names the tool of a cut-off call, however it is spaced", () => {
    for (const reply of [
      '{"tool":"read","args":{',
      '{  "tool"  :  "read"  ,  "args"  :  {',
      '{"function":{"name":"read","arguments":{',
      '{  "function"  :  {  "name"  :  "read" , "arguments": {',
      "{'tool': 'read', 'args': {",
      '{"tool": "read"',
      'Reading now: {"tool": "read", "args": {',
      '```json\n[{"tool": "read", "args": {}\n```',
    ]) {
      expect(extract(reply), reply).toEqual({
        calls: [],
        malformed: brokenCall("read", "unbalanced braces"),
        text: reply,
      });
    }
  });

  it("names the tool of a fenced call JSON cannot read, keys quoted or not", () => {
    for (const body of [
      '{"tool": "read", "args": {"path": "a"}',
      "{tool: 'read', args: {}}",
      "{function: {name: 'read', arguments: {}}}",
      '{ function :{ name :"read"}, arguments: {}}',
    ]) {
      const reply = `\`\`\`json\n${body}\n\`\`\``;
      expect(extract(reply).malformed, body).toBe(brokenCall("read", jsonError(body)));
    }
  });

  it("reports an unknown tool's broken call only when it is the whole reply", () => {
    const fenced = '```json\n{"tool": "git_status", "args": {\n```';
    expect(extract(fenced).malformed).toBe(brokenCall("git_status", jsonError('{"tool": "git_status", "args": {')));
    expect(extract('{"tool": "git_status", "args": {\n').malformed).toBe(brokenCall("git_status", "unbalanced braces"));
    expect(extract(`Example:\n${fenced}`).malformed).toBeNull();
    expect(extract('Example: {"tool": "git_status", "args": {').malformed).toBeNull();
  });

  it("reports nothing for broken JSON that does not start as a call", () => {
    for (const reply of ["```json\n{oops: 1\n```", '{"note": "unfinished', '```json\n{"note": 1,}\n```']) {
      expect(extract(reply), reply).toEqual({ calls: [], malformed: null, text: reply.trim() });
    }
  });

  it("runs nothing from inside a cut-off call, but goes on after a complete broken one", () => {
    const cut = '{"name": "read", "arguments": {"name": "read", "arguments": {}}';
    expect(extract(cut)).toEqual({ calls: [], malformed: brokenCall("read", "unbalanced braces"), text: cut });
    const broken = '{"tool": "read", "args": {path: 1}}';
    const r = extract(`${broken} and ${READ}`);
    expect(r.calls).toEqual([readCall]);
    expect(r.malformed).toBe(brokenCall("read", jsonError(broken)));
  });
});
