/**
 * End to end: a remote MCP server's tools in a conversation (`MCP_SERVERS`). The reference
 * "everything" server from npm runs in its Streamable HTTP mode on loopback; the conversation's
 * Durable Object lists it and calls it through the official SDK's client, under the loop's
 * approval policy and hooks; a server that goes away is an `unavailable` error, not a hung loop.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { getConversation, sendMessage, type WaitReplyBody } from "../helpers/api.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { freePort } from "../helpers/free-port.js";
import { API_TOKEN, type LocalWorker } from "../helpers/local-worker.js";
import { EVERYTHING_SERVER } from "../helpers/mcp.js";
import { type Child, REPO_ROOT, startChild } from "../helpers/processes.js";
import { startScriptedStack } from "../helpers/scripted-stack.js";
import { waitUntil } from "../helpers/wait.js";

const AGENT = "pi-remote";
const TOKEN = "remote-device-token";
let llm: ScriptedLlm;
let worker: LocalWorker;
let agent: AgentProcess;
let everything: Child;
let everythingPort: number;

async function startEverything(port: number): Promise<Child> {
  const child = startChild(process.execPath, [EVERYTHING_SERVER, "streamableHttp"], {
    name: "everything",
    env: { PORT: String(port) },
  });
  await waitUntil(
    () => fetch(`http://127.0.0.1:${port}/mcp`, { method: "POST", body: "{}" }).then((r) => r.status),
    (s) => s > 0,
    { what: "the everything server" },
  );
  return child;
}

/** The tool names the model was offered in its last request. */
function offeredTools(): string[] {
  const last = llm.requests().at(-1)?.body as { tools?: { function: { name: string } }[] };
  return (last.tools ?? []).map((t) => t.function.name);
}

beforeAll(async () => {
  everythingPort = await freePort();
  everything = await startEverything(everythingPort);
  const closedPort = await freePort();
  ({ llm, worker } = await startScriptedStack({
    rules: [
      {
        match: "echo (.+)",
        turns: [
          { tool_calls: [{ name: "every__echo", arguments: { message: "{{match_1}}" } }] },
          { content: "Remote said: {{last_tool_result}}" },
        ],
      },
      {
        match: "remote picture",
        turns: [{ tool_calls: [{ name: "every__get-tiny-image", arguments: {} }] }, { content: "A picture." }],
      },
      {
        match: "add two and three",
        turns: [
          { tool_calls: [{ name: "every__get-sum", arguments: { a: 2, b: 3 } }] },
          { content: "Sum: {{last_tool_result}}" },
        ],
      },
    ],
    devices: { [AGENT]: TOKEN },
    vars: {
      // The MCP servers are on loopback: only the local-testing flag lets the worker reach them.
      ALLOW_PRIVATE_OUTBOUND: "true",
      TOOL_DENY_PATTERNS: JSON.stringify({ every__echo: ["classified"] }),
      MCP_SERVERS: JSON.stringify([
        {
          name: "every",
          url: `http://127.0.0.1:${everythingPort}/mcp`,
          allowed_tools: ["echo", "get-sum", "get-tiny-image"],
          policy: { "get-sum": "requires_approval" },
          timeout_secs: 5,
          max_retries: 1,
        },
        { name: "down", url: `http://127.0.0.1:${closedPort}/mcp`, timeout_secs: 2, max_retries: 0 },
      ]),
    },
  }));
  agent = await startAgent({
    url: worker.url,
    agentId: AGENT,
    token: TOKEN,
    skills: [join(REPO_ROOT, "skills/pi-tools")],
  });
});

afterAll(async () => {
  await agent?.stop();
  await worker?.stop();
  await everything?.stop();
  await llm?.close();
});

describe("a remote MCP server's tools in a conversation", () => {
  let conversationId: string;

  it("offers the allowed tools with the server's name as prefix, and calls them from the Durable Object", async () => {
    const { status, body } = await sendMessage(worker.url, { agent_id: AGENT, text: "echo hello there" }, 60);
    expect(status).toBe(200);
    expect(body.reply).toBe("Remote said: Echo: hello there");
    conversationId = body.conversation_id;
    const offered = offeredTools();
    expect(offered).toEqual(expect.arrayContaining(["every__echo", "every__get-sum", "every__get-tiny-image"]));
    expect(offered.filter((n) => n.startsWith("every__"))).toHaveLength(3);
    // The server that does not answer offers nothing, and did not hold the message up for long.
    expect(offered.some((n) => n.startsWith("down__"))).toBe(false);
  });

  it("a remote server's image is stored and reaches the model as a device's does", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: AGENT, text: "remote picture" }, 60);
    expect(body).toMatchObject({ status: "completed", reply: "A picture." });
    const sent = llm
      .requests()
      .filter((r) => JSON.stringify(r.body).includes("remote picture"))
      .at(-1)!.body as { messages: { role: string; content: unknown }[] };
    const last = sent.messages.at(-1)!;
    expect(last.role).toBe("user");
    expect(JSON.stringify(last.content)).toContain('"url":"data:image/png;base64,iVBORw0KGgo');
    const conv = await getConversation(worker.url, body.conversation_id);
    const tool = conv.messages.find((m) => m.role === "tool")!;
    expect(tool.images![0]).toMatchObject({ width: 20, height: 20 });
    expect(JSON.stringify(conv)).not.toContain("iVBORw0KGgo");
  });

  it("the deny-list hook and the approval policy apply to remote tools", async () => {
    const blocked = await sendMessage(
      worker.url,
      { agent_id: AGENT, conversation_id: conversationId, text: "echo classified plans" },
      60,
    );
    expect(blocked.body.tool_calls[0]).toMatchObject({ name: "every__echo", status: "blocked" });

    const started = await sendMessage(worker.url, { agent_id: AGENT, text: "add two and three" });
    const id = started.body.conversation_id;
    const pending = await waitUntil(
      () =>
        fetch(`${worker.url}/v1/conversations/${id}`, { headers: { authorization: `Bearer ${API_TOKEN}` } }).then(
          (r) => r.json() as Promise<{ pending_tool_calls: { id: string; state: string }[] }>,
        ),
      (v) => v.pending_tool_calls.some((c) => c.state === "awaiting_approval"),
      { what: "the call to wait for approval" },
    );
    await fetch(`${worker.url}/v1/conversations/${id}/approvals/${pending.pending_tool_calls[0]!.id}`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ approve: true }),
    });
    const reply = await waitUntil(
      () =>
        fetch(`${worker.url}/v1/conversations/${id}`, { headers: { authorization: `Bearer ${API_TOKEN}` } }).then(
          (r) => r.json() as Promise<{ status: string; replies: { reply: string }[] }>,
        ),
      (v) => v.status === "completed",
      { what: "the reply" },
    );
    expect(reply.replies.at(-1)!.reply).toBe("Sum: The sum of 2 and 3 is 5.");
  });

  it("a server that went away is an unavailable tool error the model reads, and the loop ends", async () => {
    await everything.stop();
    const started = Date.now();
    const { body } = await sendMessage(
      worker.url,
      { agent_id: AGENT, conversation_id: conversationId, text: "echo anyone there?" },
      60,
    );
    expect((body as WaitReplyBody).status).toBe("completed");
    expect(body.tool_calls[0]).toMatchObject({ name: "every__echo", status: "error", error_type: "unavailable" });
    expect(body.reply).toMatch(
      /^Remote said: Error: Tool 'every__echo' is unavailable: MCP server 'every' could not be reached \(2 attempts\)/,
    );
    // Two attempts of at most 5 s each and one backoff, not the loop's deadline.
    expect(Date.now() - started).toBeLessThan(20_000);
    everything = await startEverything(everythingPort);
  });
});
