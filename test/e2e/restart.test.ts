/**
 * Kill the local runtime (kill -9 wrangler and workerd) while the loop is waiting, start it again
 * on the same persisted state, and the conversation finishes with exactly one reply, the tool
 * having run once; a result the device kept through an outage longer than the call's deadline
 * still counts.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlm } from "../../scripted-llm/server.js";
import { getConversation, sendMessage } from "../helpers/api.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { scriptedVars } from "../helpers/scripted-stack.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const TOKEN = "restart-device-token";
let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
let worker: LocalWorker;
let agent: AgentProcess;
let workspace: string;
const vars = () => scriptedVars(llm, { "pi-r": TOKEN }, { LLM_MAX_RETRIES: "5", DEVICE_RESULT_GRACE_MS: "1000" });

beforeAll(async () => {
  workspace = tempDir("edgeloop-restart-ws-");
  llm = await startScriptedLlm({
    port: 0,
    rules: [
      {
        match: "slow tool",
        turns: [
          // Appends a line per run: the file's line count is how many times the tool ran.
          {
            tool_calls: [
              {
                name: "bash",
                arguments: {
                  command: "echo started >> runs.txt; sleep 4; echo finished-$(wc -l < runs.txt)",
                  timeout_ms: 60000,
                },
              },
            ],
          },
          { content: "Tool said: {{last_tool_result}}" },
        ],
      },
      {
        match: "outlive the deadline",
        turns: [
          {
            tool_calls: [
              {
                name: "bash",
                arguments: {
                  command: "echo started >> late.txt; sleep 2; echo kept-through-the-outage",
                  timeout_ms: 3000,
                },
              },
            ],
          },
          { content: "Tool said: {{last_tool_result}}" },
        ],
      },
      {
        match: "slow model",
        turns: [{ content: "Answered after a restart.", delay_ms: 4000 }],
      },
    ],
  });
  worker = await startLocalWorker({ vars: vars() });
  // Reconnect attempts at most 2 s apart, so the agent is back soon after each restart.
  agent = await startAgent({
    url: worker.url,
    agentId: "pi-r",
    token: TOKEN,
    workspace,
    env: { EDGELOOP_RECONNECT_MAX_MS: "2000" },
  });
});

afterAll(async () => {
  await agent?.stop();
  await worker?.stop();
  await llm?.close();
});

async function restartRuntime(downMs = 0): Promise<void> {
  await worker.kill();
  await new Promise((r) => setTimeout(r, downMs));
  worker = await startLocalWorker({ vars: vars(), persistDir: worker.persistDir, port: worker.port });
}

describe("durable loop: survives a runtime restart", () => {
  it("a device tool running during the restart: one reply, the tool ran once", async () => {
    writeFileSync(join(workspace, "runs.txt"), "");
    const accepted = await sendMessage(worker.url, { agent_id: "pi-r", text: "run the slow tool" });
    expect(accepted.status).toBe(202);
    const id = accepted.body.conversation_id;
    await waitUntil(
      async () => readFileSync(join(workspace, "runs.txt"), "utf8"),
      (t) => t.includes("started"),
      { what: "tool to start" },
    );
    await restartRuntime();

    const done = await waitUntil(
      () => getConversation(worker.url, id),
      (c) => c.status === "completed",
      { timeoutMs: 60_000, what: "conversation to complete" },
    );
    const assistantFinals = done.messages.filter((m) => m.role === "assistant" && !m.tool_calls?.length);
    expect(assistantFinals).toHaveLength(1);
    expect(assistantFinals[0]!.content).toContain("finished-1");
    expect(readFileSync(join(workspace, "runs.txt"), "utf8").trim().split("\n")).toEqual(["started"]);
    const tools = done.messages.filter((m) => m.role === "tool");
    expect(tools).toHaveLength(1);
  });

  it("a result the device kept while the runtime was down past the call's deadline counts, not `timeout`", async () => {
    writeFileSync(join(workspace, "late.txt"), "");
    const accepted = await sendMessage(worker.url, { agent_id: "pi-r", text: "outlive the deadline" });
    const id = accepted.body.conversation_id;
    await waitUntil(
      async () => readFileSync(join(workspace, "late.txt"), "utf8"),
      (t) => t.includes("started"),
      { what: "tool to start" },
    );
    // Down for longer than both deadlines: the hub's (timeout 3 s + grace 1 s) and the
    // conversation's (timeout + its 15 s grace). The tool finishes 2 s in, with nobody to hear it.
    await restartRuntime(19_000);

    const done = await waitUntil(
      () => getConversation(worker.url, id),
      (c) => c.status === "completed",
      { timeoutMs: 60_000, what: "conversation to complete" },
    );
    const tools = done.messages.filter((m) => m.role === "tool");
    expect(tools).toHaveLength(1);
    // The device's output, not the timeout error (which quotes the command, output text included).
    const content = JSON.stringify(tools[0]!.content);
    expect(content).not.toMatch(/timed out|Error/);
    expect(content).toContain("kept-through-the-outage\\n");
    expect(readFileSync(join(workspace, "late.txt"), "utf8").trim().split("\n")).toEqual(["started"]);
  });

  it("an LLM call in flight during the restart is made again and the conversation completes once", async () => {
    const accepted = await sendMessage(worker.url, { agent_id: "pi-r", text: "slow model please" });
    const id = accepted.body.conversation_id;
    await waitUntil(
      async () => llm.requests().filter((r) => JSON.stringify(r.body).includes("slow model please")).length,
      (n) => n >= 1,
      { what: "LLM request" },
    );
    await restartRuntime();
    const done = await waitUntil(
      () => getConversation(worker.url, id),
      (c) => c.status === "completed",
      { timeoutMs: 60_000, what: "conversation to complete" },
    );
    expect(done.messages.filter((m) => m.role === "assistant")).toEqual([
      { role: "assistant", content: "Answered after a restart." },
    ]);
  });
});
