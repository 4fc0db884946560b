import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ScriptedLlm, startScriptedLlm } from "../../../scripted-llm/server.js";

// The scripted model's Anthropic side on the raw wire: the SSE event sequence as the Messages
// API sends it, its error bodies, and the request rules it enforces like the API.

let llm: ScriptedLlm;
beforeAll(async () => {
  llm = await startScriptedLlm({ port: 0 });
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

const HEADERS = { "content-type": "application/json", "x-api-key": "k", "anthropic-version": "2023-06-01" };
const tools = [{ name: "bash", input_schema: { type: "object" } }];

function post(body: unknown, headers: Record<string, string> = HEADERS) {
  return fetch(`${llm.origin}/v1/messages`, { method: "POST", headers, body: JSON.stringify(body) });
}

function request(extra: Record<string, unknown> = {}) {
  return { model: "claude-x", max_tokens: 64, messages: [{ role: "user", content: "go" }], ...extra };
}

/** [event name, data] pairs of an SSE body */
async function events(response: Response): Promise<[string, Record<string, unknown>][]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? "";
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null");
      return [event, data];
    });
}

describe("scripted model, Anthropic format", () => {
  it("streams message_start, blocks with their deltas, message_delta and message_stop, each event named", async () => {
    llm.setRules([
      {
        turns: [
          {
            content: "On it.",
            tool_calls: [
              { name: "bash", arguments: { command: "uname -a" } },
              { name: "bash", arguments: { command: "uptime" } },
            ],
          },
        ],
      },
    ]);
    const response = await post(request({ stream: true, tools }));
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const got = await events(response);
    for (const [event, data] of got) expect(data.type).toBe(event);
    const names = got.map(([event]) => event);
    expect(names[0]).toBe("message_start");
    expect(names.slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect(names).toContain("ping");
    const starts = got
      .filter(([e]) => e === "content_block_start")
      .map(([, d]) => d.content_block as Record<string, unknown>);
    expect(starts.map((b) => b.type)).toEqual(["text", "tool_use", "tool_use"]);
    expect(starts[1]).toMatchObject({ name: "bash", input: {} });
    expect(starts[1]!.id).toMatch(/^toolu_/);
    // The input arrives as JSON in pieces (the first one empty, as the API sends it) per block index.
    const pieces = (index: number) =>
      got
        .filter(([e, d]) => e === "content_block_delta" && d.index === index)
        .map(([, d]) => (d.delta as { partial_json: string }).partial_json);
    expect(pieces(1)[0]).toBe("");
    expect(pieces(1).length).toBeGreaterThan(2);
    expect(JSON.parse(pieces(1).join(""))).toEqual({ command: "uname -a" });
    expect(JSON.parse(pieces(2).join(""))).toEqual({ command: "uptime" });
    const [, delta] = got.find(([e]) => e === "message_delta")!;
    expect(delta.delta).toEqual({ stop_reason: "tool_use", stop_sequence: null });
    expect((delta.usage as { output_tokens: number }).output_tokens).toBeGreaterThan(0);
  });

  it("answers a whole message without stream", async () => {
    llm.setRules([{ turns: [{ content: "Hello." }] }]);
    const body = await (await post(request())).json();
    expect(body).toMatchObject({
      type: "message",
      role: "assistant",
      model: "claude-x",
      content: [{ type: "text", text: "Hello." }],
      stop_reason: "end_turn",
    });
  });

  it("ends with stop_reason max_tokens and the last call cut off, when scripted so", async () => {
    llm.setRules([
      {
        turns: [
          { tool_calls: [{ name: "bash", arguments: { command: "a long one" } }], quirks: { max_tokens_stop: true } },
        ],
      },
    ]);
    const got = await events(await post(request({ stream: true, tools })));
    const json = got
      .filter(([e]) => e === "content_block_delta")
      .map(([, d]) => (d.delta as { partial_json: string }).partial_json);
    expect(() => JSON.parse(json.join(""))).toThrow();
    expect(got.find(([e]) => e === "message_delta")![1].delta).toMatchObject({ stop_reason: "max_tokens" });
  });

  it("sends 529 overloaded_error and 429 rate_limit_error in the API's error shape, with retry-after", async () => {
    llm.setRules([{ turns: [{ content: "x", error: { status: 529, retry_after: 3 } }] }]);
    const overloaded = await post(request());
    expect(overloaded.status).toBe(529);
    expect(overloaded.headers.get("retry-after")).toBe("3");
    expect(overloaded.headers.get("request-id")).toMatch(/^req_/);
    expect(await overloaded.json()).toMatchObject({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
    llm.setRules([{ turns: [{ content: "x", error: { status: 429 } }] }]);
    expect(await (await post(request())).json()).toMatchObject({ error: { type: "rate_limit_error" } });
  });

  it("refuses what the API refuses", async () => {
    const problems: [unknown, Record<string, string>, number, string][] = [
      [request(), { "content-type": "application/json", "anthropic-version": "2023-06-01" }, 401, "x-api-key"],
      [request(), { "content-type": "application/json", "x-api-key": "k" }, 400, "anthropic-version"],
      [request({ max_tokens: undefined }), HEADERS, 400, "max_tokens"],
      [request({ messages: [{ role: "user", content: [{ type: "text", text: "" }] }] }), HEADERS, 400, "non-empty"],
      [
        request({
          tools,
          messages: [
            { role: "user", content: "go" },
            { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }] },
            { role: "user", content: "no result given" },
          ],
        }),
        HEADERS,
        400,
        "without `tool_result`",
      ],
      [
        request({
          messages: [
            { role: "user", content: "go" },
            { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }] },
            { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] },
          ],
        }),
        HEADERS,
        400,
        "must define tools",
      ],
      [
        request({
          tools,
          messages: [
            { role: "user", content: "go" },
            { role: "assistant", content: [{ type: "tool_use", id: "bad.id", name: "bash", input: {} }] },
          ],
        }),
        HEADERS,
        400,
        "pattern",
      ],
    ];
    for (const [body, headers, status, words] of problems) {
      const response = await post(body, headers);
      expect(response.status, words).toBe(status);
      expect(JSON.stringify(await response.json())).toContain(words);
    }
  });

  it("records each request's format, path and headers", async () => {
    llm.setRules([{ turns: [{ content: "ok" }] }]);
    await fetch(`${llm.origin}/v1/acct/gw/anthropic/v1/messages`, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify(request()),
    });
    const [recorded] = llm.requests();
    expect(recorded).toMatchObject({ format: "anthropic", path: "/v1/acct/gw/anthropic/v1/messages" });
    expect(recorded!.headers["x-api-key"]).toBe("k");
  });
});
