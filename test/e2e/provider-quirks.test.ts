/**
 * Real providers differ from the spec; the loop must take them all, through the whole worker:
 * tool calls with finish_reason "stop", arguments as objects, missing call ids and indexes, no
 * usage, tool calls written as text, 429s with Retry-After, and a model that stays down.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScopedLlm } from "../../scripted-llm/scope-client.js";
import { getConversation, sendMessage } from "../helpers/api.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { joinSharedStack, type SharedStack } from "../helpers/shared-stack.js";
import { tempDir } from "../helpers/temp-dir.js";

const TOKEN = "quirks-device-token";
let llm: ScopedLlm;
let worker: SharedStack["worker"];
let agent: AgentProcess;

beforeAll(async () => {
  const workspace = tempDir("edgeloop-quirks-ws-");
  writeFileSync(join(workspace, "note.txt"), "quirky content\n");
  const readNote = { name: "read", arguments: { path: "note.txt" } };
  // The suite's shared worker, whose LLM_MAX_RETRIES is 2 (shared-stack-config.ts).
  ({ llm, worker } = await joinSharedStack({
    scope: "provider-quirks",
    rules: [
      {
        match: "sloppy provider",
        turns: [
          {
            tool_calls: [readNote],
            quirks: {
              finish_reason_stop: true,
              arguments_as_object: true,
              missing_ids: true,
              missing_index: true,
              no_usage: true,
            },
          },
          { content: "Read: {{last_tool_result}}" },
        ],
      },
      {
        match: "text protocol",
        turns: [
          { tool_calls: [readNote], quirks: { text_tool_call: "xml" } },
          { content: "Text call read: {{last_tool_result}}" },
        ],
      },
      {
        match: "rate limited",
        turns: [{ content: "Answered after a 429.", error: { status: 429, retry_after: 1, times: 1 } }],
      },
      { match: "model down", turns: [{ content: "never", error: { status: 503, times: 100 } }] },
    ],
    devices: { "pi-q": TOKEN },
  }));
  agent = await startAgent({ url: worker.url, agentId: "pi-q", token: TOKEN, workspace });
});

afterAll(async () => {
  await agent?.stop();
  await llm?.close();
});

describe("real provider output", () => {
  it("takes tool calls with finish_reason stop, object arguments, no ids, no index and no usage", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: "pi-q", text: "sloppy provider" }, 60);
    expect(body.status).toBe("completed");
    expect(body.reply).toContain("quirky content");
    // We assigned an id the provider did not give, and used it for the tool message.
    const conv = await getConversation(worker.url, body.conversation_id);
    const call = conv.messages.find((m) => m.tool_calls?.length)!.tool_calls![0]!;
    expect(call.id).toMatch(/^call_/);
    expect(JSON.parse(call.function.arguments)).toEqual({ path: "note.txt" });
    expect(conv.messages.find((m) => m.role === "tool")!.tool_call_id).toBe(call.id);
  });

  it("runs a tool call the model wrote as <tool_call> text despite native tools", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: "pi-q", text: "text protocol please" }, 60);
    expect(body.status).toBe("completed");
    expect(body.tool_calls).toMatchObject([{ name: "read", status: "success" }]);
    expect(body.reply).toContain("quirky content");
  });

  it("retries a 429 honouring Retry-After", async () => {
    const before = (await llm.requests()).length;
    const { body } = await sendMessage(worker.url, { agent_id: "pi-q", text: "rate limited" }, 60);
    expect(body).toMatchObject({ status: "completed", reply: "Answered after a 429." });
    expect((await llm.requests()).length - before).toBe(2);
  });

  it("ends with an error status, never hangs, when the model stays down", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: "pi-q", text: "model down" }, 60);
    expect(body.status).toBe("failed");
    expect(body.stop_reason).toBe("llm_error");
    expect(body.reply).toContain("503");
  });
});
