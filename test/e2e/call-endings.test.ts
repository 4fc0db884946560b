/**
 * A device cut off mid-call (its network link dropped, the agent still running the tool) and
 * reconnected after the call's deadline: the model is told the outcome is unknown, not that it
 * timed out, and the result the device sends on reconnecting reaches the model at its next turn
 * (docs/architecture.md#call-endings, #late-results). The deployment redacts `Bearer \S+`, a pattern
 * that breaks an outcome's JSON text: the late result and a direct call's result reach the model
 * redacted, and the conversation goes on (docs/architecture.md#the-loops-rules-beyond-the-basics).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { getConversation, sendMessage } from "../helpers/api.js";
import { type CuttableLink, cuttableLink } from "../helpers/cuttable-link.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { ADMIN_TOKEN, type LocalWorker } from "../helpers/local-worker.js";
import { fleetClient, resultText } from "../helpers/mcp.js";
import { startScriptedStack } from "../helpers/scripted-stack.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const TOKEN = "endings-device-token";
let llm: ScriptedLlm;
let worker: LocalWorker;
let link: CuttableLink;
let agent: AgentProcess;
let workspace: string;

beforeAll(async () => {
  workspace = tempDir("edgeloop-endings-ws-");
  ({ llm, worker } = await startScriptedStack({
    rules: [
      {
        match: "cut off mid-call",
        turns: [
          {
            tool_calls: [
              {
                name: "bash",
                arguments: {
                  command: "echo started >> cut.txt; sleep 1; echo committed Bearer abc$((100 + 23))",
                  timeout_ms: 3000,
                },
              },
            ],
          },
          { content: "Tool said: {{last_tool_result}}" },
        ],
      },
      { match: "what happened", turns: [{ content: "It finished late." }] },
      { match: "what did the call print", turns: [{ content: "It printed a header." }] },
    ],
    devices: { "pi-cut": TOKEN },
    vars: {
      DEVICE_RESULT_GRACE_MS: "500",
      REDACT_PATTERNS: JSON.stringify(["Bearer \\S+"]),
    },
  }));
  link = await cuttableLink(worker.port);
  agent = await startAgent({
    url: link.url,
    agentId: "pi-cut",
    token: TOKEN,
    workspace,
    env: { EDGELOOP_RECONNECT_MAX_MS: "1000" },
  });
});

afterAll(async () => {
  await agent?.stop();
  await link?.close();
  await worker?.stop();
  await llm?.close();
});

type ChatRequest = { messages: { role: string; content: string | null }[] };

describe("call endings: a device cut off mid-call", () => {
  it("the model is told outcome_unknown, then gets the result the device sent on reconnecting", async () => {
    writeFileSync(join(workspace, "cut.txt"), "");
    const accepted = await sendMessage(worker.url, { agent_id: "pi-cut", text: "cut off mid-call" });
    const id = accepted.body.conversation_id;
    await waitUntil(
      async () => readFileSync(join(workspace, "cut.txt"), "utf8"),
      (t) => t.includes("started"),
      { what: "tool to start" },
    );
    link.cut();
    const first = await waitUntil(
      () => getConversation(worker.url, id),
      (c) => c.status === "idle" || c.status === "completed",
      { timeoutMs: 30_000, what: "the run to end without the device" },
    );
    const told = first.messages.find((m) => m.role === "tool")!.content!;
    expect(told).toMatch(/^Error: The outcome of 'bash' is unknown: the device took the command, but no result/);
    expect(told).toContain("Do not repeat it blindly");
    expect(told).not.toContain("timed out");
    link.restore();
    // The token is printed, never written in the command: only the result could carry it.
    // The agent reconnects and sends the result it kept; the next turn's model call carries it.
    await waitUntil(
      () =>
        fetch(`${worker.url}/v1/devices/pi-cut`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then(
          (r) => r.json() as Promise<{ counters: Record<string, number> }>,
        ),
      (d) => (d.counters.late_results ?? 0) === 1,
      { timeoutMs: 20_000, what: "the late result to be kept" },
    );
    const next = await sendMessage(worker.url, { conversation_id: id, agent_id: "pi-cut", text: "what happened?" }, 60);
    expect(next.body).toMatchObject({ status: "completed", reply: "It finished late." });
    const last = llm.requests().at(-1)!.body as ChatRequest;
    const note = last.messages.at(-1)!;
    expect(note.role).toBe("user");
    expect(note.content).toMatch(
      /^\[edgeloop\] A late result: the earlier `bash` call \(\S+\) did finish after its outcome was reported to you:\ncommitted \[REDACTED\]\n/,
    );
    expect(JSON.stringify(llm.requests().map((r) => r.body))).not.toContain("abc123");
    expect(last.messages.at(-2)).toEqual({ role: "user", content: "what happened?" });
    // Ran once.
    expect(readFileSync(join(workspace, "cut.txt"), "utf8").trim().split("\n")).toEqual(["started"]);
  });
});

describe("a direct call whose output the deployment redacts", () => {
  it("reaches the caller and the model redacted, and the conversation goes on", async () => {
    const { client, transport } = await fleetClient(worker.url);
    const result = await client.callTool({
      name: "pi-cut__bash",
      arguments: { command: "echo Authorization: Bearer xyz$((700 + 89))" },
    });
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toBe("Authorization: [REDACTED]\n");
    await transport.terminateSession();
    const audit = await waitUntil(
      () =>
        fetch(`${worker.url}/v1/audit?agent_id=pi-cut&tool=bash`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        }).then((r) => r.json() as Promise<{ entries: { conversation_id: string }[] }>),
      (a) => a.entries.some((e) => e.conversation_id.startsWith("mcp_")),
      { what: "the direct call's audit row" },
    );
    const id = audit.entries.find((e) => e.conversation_id.startsWith("mcp_"))!.conversation_id;
    const next = await sendMessage(
      worker.url,
      { conversation_id: id, agent_id: "pi-cut", text: "what did the call print?" },
      60,
    );
    expect(next.body).toMatchObject({ status: "completed", reply: "It printed a header." });
    const last = llm.requests().at(-1)!.body as ChatRequest;
    expect(last.messages.find((m) => m.role === "tool")!.content).toBe("Authorization: [REDACTED]\n");
    expect(JSON.stringify(last)).not.toContain("xyz789");
  });
});
