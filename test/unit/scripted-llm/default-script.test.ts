import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultRules } from "../../../scripted-llm/default-script.js";
import { ScriptRules } from "../../../scripted-llm/script.js";
import { type ScriptedLlm, startScriptedLlm } from "../../../scripted-llm/server.js";

// The bundled model `npm start` falls back to: every rule walked through to its answer.

let llm: ScriptedLlm;
let client: OpenAI;
beforeAll(async () => {
  llm = await startScriptedLlm({ rules: defaultRules });
  client = new OpenAI({ baseURL: llm.url, apiKey: "x", maxRetries: 0 });
});
afterAll(() => llm.close());

/** Plays the loop: answers every tool call with `results[name]` until the model replies in text. */
async function converse(text: string, results: Record<string, string>) {
  const messages: ChatCompletionMessageParam[] = [{ role: "user", content: text }];
  const calls: { name: string; args: unknown }[] = [];
  for (let i = 0; i < 5; i++) {
    const { message } = (await client.chat.completions.create({ model: "scripted", messages })).choices[0]!;
    messages.push(message as ChatCompletionMessageParam);
    if (!message.tool_calls?.length) return { reply: message.content, calls };
    for (const call of message.tool_calls) {
      if (call.type !== "function") continue;
      calls.push({ name: call.function.name, args: JSON.parse(call.function.arguments) });
      messages.push({ role: "tool", tool_call_id: call.id, content: results[call.function.name] ?? "?" });
    }
  }
  throw new Error("no final answer");
}

describe("default script", () => {
  it("is a valid script", () => {
    expect(ScriptRules.safeParse(defaultRules).success).toBe(true);
  });

  it("any message: runs a harmless bash command, then says what it understands and quotes the output", async () => {
    const r = await converse("hello there", { bash: "Linux 6.1.0 aarch64\n 10:00 up 3 days" });
    expect(r.calls).toEqual([{ name: "bash", args: { command: "uname -srm && uptime" } }]);
    expect(r.reply).toContain("I'm the bundled scripted model, not a real LLM; I understand: `echo: <text>`");
    expect(r.reply).toContain("Configure a real model");
    expect(r.reply).toContain("Linux 6.1.0 aarch64\n 10:00 up 3 days");
  });

  it("commits: git_log, git_diff, then a summary with both results", async () => {
    const r = await converse("What was the last commit?", { git_log: "abc123 fix", git_diff: "+a line" });
    expect(r.calls.map((c) => c.name)).toEqual(["git_log", "git_diff"]);
    expect(r.reply).toContain("abc123 fix\n---\n+a line");
  });

  it("read <path>: the read tool with that path (trailing punctuation dropped)", async () => {
    const r = await converse("please read notes/todo.md.", { read: "buy milk" });
    expect(r.calls).toEqual([{ name: "read", args: { path: "notes/todo.md" } }]);
    expect(r.reply).toContain("buy milk");
  });

  it("echo: <text> answers the text, no tools", async () => {
    expect(await converse("echo: hello world", {})).toEqual({ reply: "hello world", calls: [] });
  });
});
