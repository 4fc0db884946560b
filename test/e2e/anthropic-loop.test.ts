/**
 * The loop end to end on Anthropic's Messages API: wrangler dev with LLM_PROVIDER=anthropic, its
 * base URL in Cloudflare AI Gateway's shape pointing at the scripted model (which speaks the
 * API's wire format and refuses what the API refuses), a real device agent running the tools.
 * Parallel tool_use blocks with their input in pieces, a 529 overloaded (once, and for good),
 * a max_tokens stop mid-call, the last call after a cap (tools kept, tool_choice none), token
 * usage and its cost estimate.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storedEvents } from "../../bench/lib/conversation-events.js";
import { startScriptedLlm } from "../../scripted-llm/server.js";
import { sendMessage } from "../helpers/api.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { ADMIN_TOKEN, type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const TOKEN = "anthropic-device-token";
const GATEWAY_PATH = "/v1/acct-e2e/gw-e2e/anthropic";
let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
let worker: LocalWorker;
let agent: AgentProcess;

type Sent = { path: string; headers: Record<string, string>; body: Record<string, unknown> };
type Block = Record<string, unknown> & { type: string };
const requestsFor = (words: string) =>
  llm.requests().filter((r) => JSON.stringify(r.body).includes(words)) as unknown as Sent[];
const contentOf = (message: unknown) => (message as { content: Block[] }).content;

beforeAll(async () => {
  const workspace = tempDir("edgeloop-anthropic-ws-");
  writeFileSync(join(workspace, "a.txt"), "alpha contents\n");
  writeFileSync(join(workspace, "b.txt"), "beta contents\n");
  llm = await startScriptedLlm({
    port: 0,
    rules: [
      {
        match: "both files",
        turns: [
          {
            content: "Reading both files at once.",
            tool_calls: [
              { name: "read", arguments: { path: "a.txt" } },
              { name: "read", arguments: { path: "b.txt" } },
            ],
          },
          { content: "Both files:\n{{tool_results}}" },
        ],
      },
      {
        match: "overloaded once",
        turns: [{ content: "Answered after a 529.", error: { status: 529, retry_after: 0.5, times: 1 } }],
      },
      { match: "overloaded for good", turns: [{ content: "never", error: { status: 529 } }] },
      {
        match: "cut off",
        turns: [
          {
            tool_calls: [{ name: "bash", arguments: { command: "echo this call is cut short" } }],
            quirks: { max_tokens_stop: true },
          },
          { content: "My call was cut off: {{last_tool_result}}" },
        ],
      },
      { match: "tool loop has stopped", turns: [{ content: "Stopped after one round; a.txt was read." }] },
      { match: "one round only", turns: [{ tool_calls: [{ name: "read", arguments: { path: "a.txt" } }] }] },
    ],
  });
  worker = await startLocalWorker({
    vars: {
      LLM_PROVIDER: "anthropic",
      ANTHROPIC_BASE_URL: `${llm.origin}${GATEWAY_PATH}`,
      ANTHROPIC_API_KEY: "sk-ant-e2e",
      AI_GATEWAY_TOKEN: "aig-e2e",
      LLM_MODEL: "claude-e2e",
      LLM_MAX_RETRIES: "2",
      SYSTEM_PROMPT: "You are edgeloop's test agent.",
      LLM_PRICES: JSON.stringify({ "claude-e2e": { input_per_mtok: 3, output_per_mtok: 15 } }),
      DEVICE_TOKENS: `pi-a:${TOKEN}`,
    },
  });
  agent = await startAgent({ url: worker.url, agentId: "pi-a", token: TOKEN, workspace });
});

afterAll(async () => {
  await agent?.stop();
  await worker?.stop();
  await llm?.close();
});

describe("the loop on Anthropic's Messages API", () => {
  it("runs parallel tool_use calls on the device and answers, through the gateway URL", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: "pi-a", text: "read both files" }, 60);
    expect(body.status).toBe("completed");
    expect(body.tool_calls.map((c) => [c.name, c.status])).toEqual([
      ["read", "success"],
      ["read", "success"],
    ]);
    expect(body.reply).toContain("alpha contents");
    expect(body.reply).toContain("beta contents");

    const [first, second] = requestsFor("read both files");
    expect(first!.path).toBe(`${GATEWAY_PATH}/v1/messages`);
    expect(first!.headers).toMatchObject({
      "x-api-key": "sk-ant-e2e",
      "anthropic-version": "2023-06-01",
      "cf-aig-authorization": "Bearer aig-e2e",
    });
    expect(first!.body).toMatchObject({ model: "claude-e2e", stream: true });
    expect(first!.body.system).toEqual([
      { type: "text", text: "You are edgeloop's test agent.", cache_control: { type: "ephemeral" } },
    ]);
    expect((first!.body.tools as Block[]).at(-1)!.cache_control).toEqual({ type: "ephemeral" });
    // The round went back as one assistant turn with both calls and one user turn with both results.
    const messages = second!.body.messages as unknown[];
    expect(messages).toHaveLength(3);
    expect(contentOf(messages[1]).map((b) => b.type)).toEqual(["text", "tool_use", "tool_use"]);
    const results = contentOf(messages[2]);
    expect(results.map((b) => [b.type, b.tool_use_id])).toEqual(
      contentOf(messages[1])
        .filter((b) => b.type === "tool_use")
        .map((b) => ["tool_result", b.id]),
    );
    expect(JSON.stringify(results)).toContain("alpha contents");

    // The answer's text reached the event stream as it was streamed.
    const events = await storedEvents(worker.url, body.conversation_id);
    expect(events.filter((e) => e.type === "message_delta").length).toBeGreaterThan(0);
  });

  it("retries a 529 overloaded_error after its retry-after", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: "pi-a", text: "overloaded once" }, 60);
    expect(body).toMatchObject({ status: "completed", reply: "Answered after a 529." });
    expect(requestsFor("overloaded once")).toHaveLength(2);
  });

  it("fails the run with the API's error when the model stays overloaded, never hangs", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: "pi-a", text: "overloaded for good" }, 60);
    expect(body).toMatchObject({ status: "failed", stop_reason: "llm_error" });
    expect(body.reply).toContain("overloaded_error");
    expect(requestsFor("overloaded for good")).toHaveLength(3);
  });

  it("a max_tokens stop mid-call: the cut-off call is refused, the model told why, the loop goes on", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: "pi-a", text: "cut off" }, 60);
    expect(body.status).toBe("completed");
    expect(body.tool_calls).toMatchObject([{ name: "bash", status: "error" }]);
    expect(body.reply).toContain("My call was cut off: Error");
  });

  it("the last call after a cap keeps the tools with tool_choice none, as the API requires", async () => {
    const { body } = await sendMessage(
      worker.url,
      { agent_id: "pi-a", text: "one round only", options: { max_iterations: 1 } },
      60,
    );
    expect(body).toMatchObject({ status: "completed", stop_reason: "max_iterations" });
    expect(body.reply).toContain("Stopped after one round");
    const last = requestsFor("one round only").at(-1)!;
    expect(last.body.tool_choice).toEqual({ type: "none" });
    const turn = contentOf((last.body.messages as unknown[]).at(-1));
    expect(turn.map((b) => b.type)).toEqual(["tool_result", "text"]);
  });

  it("counts the tokens and estimates their cost by model", async () => {
    const metrics = await waitUntil(
      async () => {
        const res = await fetch(`${worker.url}/v1/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        return (await res.json()) as {
          loop: { by_model: Record<string, { tokens_in: number; estimated_cost_usd: number | null }> };
        };
      },
      (m) => (m.loop.by_model["claude-e2e"]?.tokens_in ?? 0) > 0,
      { timeoutMs: 15_000, what: "loop metrics for claude-e2e" },
    );
    expect(metrics.loop.by_model["claude-e2e"]!.estimated_cost_usd).toBeGreaterThan(0);
  });
});
