import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { joinScope } from "../../../scripted-llm/scope-client.js";
import { type ScriptedLlm, startScriptedLlm } from "../../../scripted-llm/server.js";

// Two clients sharing one scripted model through scopes: each is answered by its own rules and
// sees only its own requests; a conversation both claim is answered by neither.

let llm: ScriptedLlm;
let client: OpenAI;

beforeAll(async () => {
  llm = await startScriptedLlm({ port: 0, rules: [{ turns: [{ content: "the server's own script" }] }] });
  client = new OpenAI({ baseURL: llm.url, apiKey: "test", maxRetries: 0 });
});
afterAll(() => llm.close());

const ask = async (text: string) =>
  (await client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: text }] })).choices[0]!
    .message.content;

describe("scopes of a shared scripted model", () => {
  it("answers each scope's conversations from its rules and logs them in its scope only", async () => {
    const a = await joinScope(llm.origin, "file-a", [{ match: "^alpha", turns: [{ content: "from a" }] }]);
    const b = await joinScope(llm.origin, "file-b", [{ match: "^beta", turns: [{ content: "from b: {{user}}" }] }]);
    expect(await ask("alpha one")).toBe("from a");
    expect(await ask("beta two")).toBe("from b: beta two");
    // A conversation no scope claims gets the server's own script.
    expect(await ask("gamma")).toBe("the server's own script");
    expect((await a.requests()).map((r) => JSON.stringify(r.body))).toEqual([expect.stringContaining("alpha one")]);
    expect((await b.requests()).map((r) => JSON.stringify(r.body))).toEqual([expect.stringContaining("beta two")]);
    expect(llm.requests()).toHaveLength(3);
    await b.reset();
    expect(await b.requests()).toEqual([]);
    expect(await a.requests()).toHaveLength(1);
    await a.close();
    await b.close();
    expect(await ask("alpha again")).toBe("the server's own script");
  });

  it("refuses a scope whose rules overlap another's, and a catch-all", async () => {
    const a = await joinScope(llm.origin, "file-c", [{ match: "sleep forever", turns: [{ content: "c" }] }]);
    await expect(joinScope(llm.origin, "file-d", [{ match: "sleep", turns: [{ content: "d" }] }])).rejects.toThrow(
      /409 scope file-d: rule "sleep" overlaps scope file-c's rule "sleep forever"/,
    );
    await expect(joinScope(llm.origin, "file-d", [{ turns: [{ content: "d" }] }])).rejects.toThrow(
      /400 bad script: rules.0: a scoped rule needs a `match`/,
    );
    await a.close();
  });

  it("answers a conversation two scopes claim with a 400 naming both, from neither's rules", async () => {
    const a = await joinScope(llm.origin, "file-e", [{ match: "lights", turns: [{ content: "e" }] }]);
    const b = await joinScope(llm.origin, "file-f", [{ match: "kitchen", turns: [{ content: "f" }] }]);
    const error = await ask("kitchen lights on").catch((e: Error) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(String(error)).toContain("the rules of scopes file-e and file-f all match this conversation");
    expect(await a.requests()).toEqual([]);
    expect(await b.requests()).toEqual([]);
    await a.close();
    await b.close();
  });

  it("counts a scope's scripted failures apart from another's", async () => {
    const a = await joinScope(llm.origin, "file-g", [
      { match: "flaky", turns: [{ content: "ok g", error: { status: 503, times: 1 } }] },
    ]);
    const failed = await ask("flaky").catch((e: Error) => e);
    expect(failed).toBeInstanceOf(OpenAI.InternalServerError);
    expect(await ask("flaky")).toBe("ok g");
    await a.setRules([{ match: "flaky", turns: [{ content: "ok again", error: { status: 503, times: 1 } }] }]);
    // New rules start their failure counts anew.
    expect(await ask("flaky").catch((e: Error) => e)).toBeInstanceOf(OpenAI.InternalServerError);
    expect(await a.requests()).toHaveLength(3);
    await a.close();
  });
});
