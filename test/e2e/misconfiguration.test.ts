/** A deployment with a bad loop setting answers 500 naming the setting, and starts nothing. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendMessage } from "../helpers/api.js";
import { type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";

let worker: LocalWorker;

beforeAll(async () => {
  worker = await startLocalWorker({
    // pi-x has a token: the message must reach the conversation, whose settings are wrong.
    vars: { OPENAI_BASE_URL: "http://127.0.0.1:9/v1", TOOL_POLICIES: "bash:sometimes", DEVICE_TOKENS: "pi-x:t" },
  });
});

afterAll(async () => {
  await worker?.stop();
});

describe("misconfigured loop settings", () => {
  it("answer 500 Server misconfigured naming the setting, not a conflict", async () => {
    const { status, body } = await sendMessage(worker.url, {
      agent_id: "pi-x",
      conversation_id: "conv-misconfigured",
      text: "hi",
    });
    expect(status).toBe(500);
    const problem = body as unknown as { title: string; detail: string };
    expect(problem.title).toBe("Server misconfigured");
    expect(problem.detail).toContain("TOOL_POLICIES");
    const conv = await fetch(`${worker.url}/v1/conversations/conv-misconfigured`, {
      headers: { authorization: "Bearer e2e-api-token" },
    });
    expect(conv.status).toBe(404);
  });
});
