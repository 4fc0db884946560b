import OpenAI from "openai";
import type { ChatCompletionChunk, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ScriptedLlm, startScriptedLlm } from "../../../scripted-llm/server.js";

// The scripted model driven by the real openai client: what it sends must be what OpenAI sends.

let llm: ScriptedLlm;
let client: OpenAI;

beforeAll(async () => {
  llm = await startScriptedLlm({ port: 0 });
  client = new OpenAI({ baseURL: llm.url, apiKey: "test", maxRetries: 0 });
});
afterAll(() => llm.close());
beforeEach(() => {
  llm.reset();
  llm.setRules([]);
});

const tools = [
  {
    type: "function" as const,
    function: {
      name: "read",
      description: "Read a file",
      parameters: { type: "object", properties: { path: { type: "string" } } },
    },
  },
  {
    type: "function" as const,
    function: {
      name: "bash",
      description: "Run",
      parameters: { type: "object", properties: { command: { type: "string" } } },
    },
  },
];

async function streamed(messages: ChatCompletionMessageParam[], usage = true): Promise<ChatCompletionChunk[]> {
  const stream = await client.chat.completions.create({
    model: "scripted",
    messages,
    tools,
    stream: true,
    ...(usage ? { stream_options: { include_usage: true } } : {}),
  });
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const user = (content: string): ChatCompletionMessageParam => ({ role: "user", content });

describe("scripted model over the wire", () => {
  it("streams like OpenAI: role first, content in pieces, tool-call deltas split, finish, usage with no choices", async () => {
    llm.setRules([
      {
        turns: [
          {
            content: "Reading both files now.",
            tool_calls: [
              { name: "read", arguments: { path: "/etc/hostname" } },
              { name: "bash", arguments: { command: "cat /etc/os-release" } },
            ],
          },
        ],
      },
    ]);
    const chunks = await streamed([user("read two files")]);
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    const contentPieces = chunks.flatMap((c) => (c.choices[0]?.delta.content ? [c.choices[0].delta.content] : []));
    expect(contentPieces.length).toBeGreaterThan(1);
    expect(contentPieces.join("")).toBe("Reading both files now.");

    const toolDeltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    for (const index of [0, 1]) {
      const mine = toolDeltas.filter((d) => d.index === index);
      expect(mine[0]!.id).toMatch(/^call_/);
      expect(mine[0]!.function!.name).toBe(index === 0 ? "read" : "bash");
      expect(mine.slice(1).every((d) => d.function?.name === undefined && d.id === undefined)).toBe(true);
      const pieces = mine.map((d) => d.function?.arguments ?? "").filter((p) => p !== "");
      expect(pieces.length).toBeGreaterThanOrEqual(2);
      expect(JSON.parse(pieces.join(""))).toEqual(
        index === 0 ? { path: "/etc/hostname" } : { command: "cat /etc/os-release" },
      );
    }
    const finishing = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finishing.map((c) => c.choices[0]!.finish_reason)).toEqual(["tool_calls"]);
    const last = chunks[chunks.length - 1]!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
  });

  it("sends no usage chunk when not asked for one", async () => {
    llm.setRules([{ turns: [{ content: "hi" }] }]);
    const chunks = await streamed([user("x")], false);
    expect(chunks.every((c) => c.choices.length === 1 && c.usage === undefined)).toBe(true);
  });

  it("answers non-streaming with a chat.completion", async () => {
    llm.setRules([{ turns: [{ tool_calls: [{ name: "bash", arguments: { command: "ls" }, id: "call_fixed" }] }] }]);
    const completion = await client.chat.completions.create({ model: "scripted", messages: [user("ls")], tools });
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
    expect(completion.choices[0]!.message.content).toBeNull();
    expect(completion.choices[0]!.message.tool_calls).toEqual([
      { id: "call_fixed", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
    ]);
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
  });

  it("lists a model", async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(["scripted"]);
  });
});

describe("turn selection and templates", () => {
  const rules = [
    {
      match: "^weather in (\\w+)",
      turns: [
        { tool_calls: [{ name: "bash", arguments: { command: "weather {{match_1}}" } }] },
        { content: "It is {{last_tool_result}} in {{match_1}}." },
      ],
    },
    {
      match: "both",
      turns: [
        {
          tool_calls: [
            { name: "read", arguments: { path: "a" } },
            { name: "read", arguments: { path: "b" } },
          ],
        },
        { content: "All: {{tool_results}} | you said {{user}} | tools {{tool_names}}" },
      ],
    },
  ];

  it("picks the turn by the assistant messages after the last user message (stateless, retry-safe)", async () => {
    llm.setRules(rules);
    const first = await client.chat.completions.create({ model: "m", messages: [user("Weather in Oslo")], tools });
    const again = await client.chat.completions.create({ model: "m", messages: [user("Weather in Oslo")], tools });
    expect(again.choices[0]!.message.tool_calls).toEqual(first.choices[0]!.message.tool_calls);
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(call.type === "function" && JSON.parse(call.function.arguments)).toEqual({ command: "weather Oslo" });

    const second = await client.chat.completions.create({
      model: "m",
      tools,
      messages: [
        user("Weather in Oslo"),
        first.choices[0]!.message as ChatCompletionMessageParam,
        { role: "tool", tool_call_id: call.id, content: "sunny" },
      ],
    });
    expect(second.choices[0]!.message.content).toBe("It is sunny in Oslo.");
  });

  it("fills {{tool_results}}, {{user}} and {{tool_names}}", async () => {
    llm.setRules(rules);
    const completion = await client.chat.completions.create({
      model: "m",
      tools,
      messages: [
        user("an older message"),
        { role: "assistant", content: "old answer" },
        user("read both"),
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c1", content: "A" },
        { role: "tool", tool_call_id: "c2", content: "B" },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe("All: A\n---\nB | you said read both | tools read, bash");
  });

  it("counts text-protocol tool results (user messages 'Tool result for …') as tool results", async () => {
    llm.setRules(rules);
    const completion = await client.chat.completions.create({
      model: "m",
      messages: [
        user("weather in Rome"),
        { role: "assistant", content: '{"tool": "bash", "args": {"command": "weather Rome"}}' },
        user("Tool result for bash (call_1):\ncloudy"),
      ],
    });
    expect(completion.choices[0]!.message.content).toBe("It is cloudy in Rome.");
  });

  it("answers plainly when nothing is scripted or the turns ran out", async () => {
    llm.setRules(rules);
    const none = await client.chat.completions.create({ model: "m", messages: [user("something else")] });
    expect(none.choices[0]!.message.content).toBe("[scripted model] no scripted turn for: something else");
    const ranOut = await client.chat.completions.create({
      model: "m",
      messages: [user("weather in Oslo"), { role: "assistant", content: "a" }, { role: "assistant", content: "b" }],
    });
    expect(ranOut.choices[0]!.message.content).toBe("[scripted model] no scripted turn for: weather in Oslo");
  });
});

describe("errors and quirks on the wire", () => {
  it("fails `times` times with the status and Retry-After, then answers", async () => {
    llm.setRules([{ turns: [{ content: "finally", error: { status: 429, retry_after: 2, times: 1 } }] }]);
    const post = () =>
      fetch(`${llm.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }] }),
      });
    const failed = await post();
    expect(failed.status).toBe(429);
    expect(failed.headers.get("retry-after")).toBe("2");
    expect(((await failed.json()) as { error: { message: string } }).error.message).toBe("scripted 429");
    const ok = await post();
    expect(ok.status).toBe(200);
    expect(llm.requests()).toHaveLength(2);
  });

  it("quirks: missing ids and index, arguments as an object, finish_reason stop, no usage", async () => {
    llm.setRules([
      {
        turns: [
          {
            tool_calls: [{ name: "read", arguments: { path: "a" } }],
            quirks: {
              missing_ids: true,
              missing_index: true,
              arguments_as_object: true,
              finish_reason_stop: true,
              no_usage: true,
            },
          },
        ],
      },
    ]);
    const chunks = await streamed([user("x")]);
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(deltas).toEqual([{ function: { name: "read", arguments: { path: "a" } } }]);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("stop");
    expect(chunks.some((c) => c.usage)).toBe(false);
  });

  it("quirk text_tool_call writes the calls into content", async () => {
    llm.setRules([
      {
        match: "json",
        turns: [{ tool_calls: [{ name: "bash", arguments: { command: "ls" } }], quirks: { text_tool_call: "json" } }],
      },
      {
        match: "xml",
        turns: [{ tool_calls: [{ name: "bash", arguments: { command: "ls" } }], quirks: { text_tool_call: "xml" } }],
      },
    ]);
    const json = await client.chat.completions.create({ model: "m", messages: [user("json")], tools });
    expect(json.choices[0]!.message).toMatchObject({ content: '{"tool": "bash", "args": {"command":"ls"}}' });
    expect(json.choices[0]!.message.tool_calls).toBeUndefined();
    expect(json.choices[0]!.finish_reason).toBe("stop");
    const xml = await client.chat.completions.create({ model: "m", messages: [user("xml")], tools });
    expect(xml.choices[0]!.message.content).toBe(
      '<tool_call>{"name": "bash", "arguments": {"command":"ls"}}</tool_call>',
    );
  });
});

describe("control API", () => {
  it("POST /__script replaces the script, 400 on a bad one", async () => {
    const bad = await fetch(`${llm.url.replace(/\/v1$/, "")}/__script`, {
      method: "POST",
      body: JSON.stringify({ rules: [{ match: "(", turns: [] }] }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/bad script/);
    const good = await fetch(`${llm.url.replace(/\/v1$/, "")}/__script`, {
      method: "POST",
      body: JSON.stringify({ rules: [{ turns: [{ content: "from the control API" }] }] }),
    });
    expect(await good.json()).toEqual({ ok: true, rules: 1 });
    const completion = await client.chat.completions.create({ model: "m", messages: [user("x")] });
    expect(completion.choices[0]!.message.content).toBe("from the control API");
  });

  it("GET /__requests lists every chat request in order with a timestamp; POST /__reset clears it", async () => {
    const root = llm.url.replace(/\/v1$/, "");
    await client.chat.completions.create({ model: "m", messages: [user("one")] });
    await client.chat.completions.create({ model: "m", messages: [user("two")], stream: true }).then(async (s) => {
      for await (const _ of s) void _;
    });
    const listed = (await (await fetch(`${root}/__requests`)).json()) as {
      at: string;
      body: { messages: { content: string }[]; stream?: boolean };
    }[];
    expect(listed.map((r) => r.body.messages[0]!.content)).toEqual(["one", "two"]);
    expect(listed[1]!.body.stream).toBe(true);
    expect(Number.isNaN(Date.parse(listed[0]!.at))).toBe(false);
    expect(llm.requests()).toHaveLength(2);
    await fetch(`${root}/__reset`, { method: "POST" });
    expect(llm.requests()).toHaveLength(0);
  });

  it("setRules rejects a bad script", () => {
    expect(() => llm.setRules([{ turns: [] }])).toThrow(/bad script/);
  });
});
