/**
 * End to end, both directions of MCP on one worker: MCP servers from npm run on the device as
 * skills and are used by conversations (scripted model → worker → hub → agent → MCP server →
 * back), and the official MCP client uses the fleet through POST /mcp, with the deployment's
 * policies, approvals and audit in between.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { getConversation, sendMessage } from "../helpers/api.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { ADMIN_TOKEN, API_TOKEN, type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import {
  everythingSkill,
  filesystemSkill,
  fleetClient,
  MCP_PACKAGES,
  resultText,
  toolAddingSkill,
} from "../helpers/mcp.js";
import { scriptedVars, startScriptedStack } from "../helpers/scripted-stack.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const AGENT = "pi-mcp";
const TOKEN = "mcp-device-token";
let llm: ScriptedLlm;
let worker: LocalWorker;
let agent: AgentProcess;
let ws: string;

async function api<T>(path: string, init: RequestInit = {}, token = API_TOKEN): Promise<T> {
  const res = await fetch(`${worker.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
  });
  return (await res.json()) as T;
}

/** The conversation's stored events, read from its SSE stream up to the run's end. */
async function storedEvents(id: string): Promise<{ type: string; partial?: unknown }[]> {
  const abort = new AbortController();
  const res = await fetch(`${worker.url}/v1/conversations/${id}/events`, {
    headers: { authorization: `Bearer ${API_TOKEN}` },
    signal: abort.signal,
  });
  const reader = res.body!.getReader();
  let text = "";
  while (!text.includes('"conversation_end"')) {
    const { done, value } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  abort.abort();
  return text
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)));
}

beforeAll(async () => {
  ws = tempDir("edgeloop-mcp-ws-");
  const note = join(ws, "note.txt");
  ({ llm, worker } = await startScriptedStack({
    rules: [
      {
        match: "write a note",
        turns: [
          { tool_calls: [{ name: "write_file", arguments: { path: note, content: "hello from the model" } }] },
          { tool_calls: [{ name: "read_text_file", arguments: { path: note } }] },
          { content: "The note says: {{last_tool_result}}" },
        ],
      },
      {
        match: "outside",
        turns: [
          { tool_calls: [{ name: "read_text_file", arguments: { path: "/etc/hostname" } }] },
          { content: "Got: {{last_tool_result}}" },
        ],
      },
      {
        match: "slow with a picture",
        turns: [
          {
            tool_calls: [
              { name: "trigger-long-running-operation", arguments: { duration: 1, steps: 2 } },
              { name: "get-tiny-image", arguments: {} },
            ],
          },
          { content: "Done: {{tool_results}}" },
        ],
      },
      {
        match: "what is in the workspace",
        turns: [
          { tool_calls: [{ name: "list_directory", arguments: { path: ws } }] },
          { content: "Listing: {{last_tool_result}}" },
        ],
      },
    ],
    devices: { [AGENT]: TOKEN },
    vars: {
      TOOL_POLICIES: "edit_file:requires_approval",
      TOOL_DENY_PATTERNS: JSON.stringify({ write_file: ["forbidden"] }),
    },
  }));
  agent = await startAgent({
    url: worker.url,
    agentId: AGENT,
    token: TOKEN,
    workspace: ws,
    skills: [filesystemSkill(), everythingSkill(), toolAddingSkill()],
  });
});

afterAll(async () => {
  await agent?.stop();
  await worker?.stop();
  await llm?.close();
});

describe("an npm MCP server as a device skill, used by a conversation", () => {
  it("the model writes and reads a file through the filesystem server on the device", async () => {
    const { status, body } = await sendMessage(worker.url, { agent_id: AGENT, text: "write a note" }, 60);
    expect(status).toBe(200);
    expect(body.reply).toBe("The note says: hello from the model");
    expect(body.tool_calls.map((c) => [c.name, c.status])).toEqual([
      ["write_file", "success"],
      ["read_text_file", "success"],
    ]);
    expect(readFileSync(join(ws, "note.txt"), "utf8")).toBe("hello from the model");
  });

  it("the server's isError comes back as a tool error the model reads", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: AGENT, text: "read outside" }, 60);
    expect(body.tool_calls[0]).toMatchObject({
      name: "read_text_file",
      status: "error",
      error_type: "execution_failed",
    });
    expect(body.reply).toMatch(/^Got: Error: Tool 'read_text_file' failed: Access denied - path outside allowed/);
  });

  it("MCP progress becomes tool_execution_update events; an image result reaches the model as an image", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: AGENT, text: "slow with a picture" }, 60);
    expect(body.status).toBe("completed");
    const events = await storedEvents(body.conversation_id);
    const conv = await getConversation(worker.url, body.conversation_id);
    const tool = conv.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(tool[0]).toBe("Long running operation completed. Duration: 1 seconds, Steps: 2.");
    expect(tool[1]).toMatch(/^Here's the image you requested:\n\[image image\/png 20x20, \d+ bytes\]\nThe image above/);
    // Stored apart and referenced (docs/images.md), sent to the model as an image part.
    const withImage = conv.messages.find((m) => m.role === "tool" && m.images);
    expect(withImage!.images![0]!.width).toBe(20);
    const updates = events.filter((e) => e.type === "tool_execution_update");
    expect(updates.map((e) => (e.partial as { text: string }[])[0]!.text)).toContain("1/2");
  });

  it("tools/list_changed reaches the hub as a manifest update: the new tool is offered at once", async () => {
    const { client, transport } = await fleetClient(worker.url);
    const added = await client.callTool({ name: `${AGENT}__add_tool`, arguments: { name: "late_tool" } });
    expect(resultText(added)).toBe("added late_tool");
    const device = await waitUntil(
      () => api<{ skills: { name: string; tools: { name: string }[] }[] }>(`/v1/devices/${AGENT}`, {}, ADMIN_TOKEN),
      (d) => d.skills.some((s) => s.tools.some((t) => t.name === "late_tool")),
      { what: "the hub to have the new tool" },
    );
    expect(device.skills.find((s) => s.name === "grow")!.tools.map((t) => t.name)).toEqual(["add_tool", "late_tool"]);
    const late = await client.callTool({ name: `${AGENT}__late_tool`, arguments: {} });
    expect(resultText(late)).toBe("i am late_tool");
    // A device tool's image comes back to an MCP client as image content, its bytes read from storage.
    const picture = await client.callTool({ name: `${AGENT}__get-tiny-image`, arguments: {} });
    const image = (picture.content as { type: string; data?: string; mimeType?: string }[]).find(
      (c) => c.type === "image",
    );
    expect(image).toMatchObject({ type: "image", mimeType: "image/png" });
    expect(Buffer.from(image!.data!, "base64").subarray(1, 4).toString()).toBe("PNG");
    await transport.terminateSession();
  });
});

describe("the fleet as an MCP server, with the official client", () => {
  it("lists the fleet's tools and each online device's as {agent_id}__{tool}", async () => {
    const { client, transport } = await fleetClient(worker.url);
    expect(client.getServerVersion()?.name).toBe("edgeloop-fleet");
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names.slice(0, 3)).toEqual(["send_message", "list_devices", "get_conversation"]);
    expect(names).toEqual(expect.arrayContaining([`${AGENT}__read_text_file`, `${AGENT}__echo`]));
    const read = tools.find((t) => t.name === `${AGENT}__read_text_file`)!;
    expect(read.inputSchema).toMatchObject({ type: "object", required: ["path"] });
    const devices = JSON.parse(resultText(await client.callTool({ name: "list_devices", arguments: {} })));
    expect(devices).toContainEqual(expect.objectContaining({ agent_id: AGENT, online: true }));
    await transport.terminateSession();
  });

  it("a device tool's image comes back to the MCP client as image content, byte for byte", async () => {
    const { client, transport } = await fleetClient(worker.url);
    const result = await client.callTool({ name: `${AGENT}__get-tiny-image`, arguments: {} });
    // The image the `everything` server sends, read from its source.
    const source = readFileSync(join(MCP_PACKAGES, "server-everything/dist/tools/get-tiny-image.js"), "utf8");
    const MCP_TINY_IMAGE = /MCP_TINY_IMAGE = "([^"]+)"/.exec(source)![1];
    expect(result.isError).toBeFalsy();
    // The server's own blocks, in order: not a `[image …]` placeholder.
    expect(result.content).toEqual([
      { type: "text", text: "Here's the image you requested:" },
      { type: "image", data: MCP_TINY_IMAGE, mimeType: "image/png" },
      { type: "text", text: "The image above is the MCP logo." },
    ]);
    await transport.close();
  });

  it("a device tool call goes through the loop's path: a conversation, the hub's audit, the deny-list hook", async () => {
    const { client, transport } = await fleetClient(worker.url);
    const file = join(ws, "from-mcp.txt");
    const written = await client.callTool({
      name: `${AGENT}__write_file`,
      arguments: { path: file, content: "via mcp" },
    });
    expect(written.isError).toBeFalsy();
    expect(readFileSync(file, "utf8")).toBe("via mcp");
    const audit = await api<{ entries: { tool: string; conversation_id: string; result: string }[] }>(
      `/v1/audit?agent_id=${AGENT}&tool=write_file`,
      {},
      ADMIN_TOKEN,
    );
    const row = audit.entries.find((e) => e.conversation_id.startsWith("mcp_"));
    expect(row).toMatchObject({ tool: "write_file", result: "success" });
    const conv = await getConversation(worker.url, row!.conversation_id);
    expect(conv.status).toBe("completed");

    const blocked = await client.callTool({
      name: `${AGENT}__write_file`,
      arguments: { path: join(ws, "no.txt"), content: "forbidden words" },
    });
    expect(blocked.isError).toBe(true);
    expect(resultText(blocked)).toMatch(/^blocked: Tool blocked by policy/);
    expect(existsSync(join(ws, "no.txt"))).toBe(false);

    const invalid = await client.callTool({ name: `${AGENT}__read_text_file`, arguments: {} });
    expect(resultText(invalid)).toMatch(/^invalid_params: Invalid parameters for 'read_text_file': missing 'path'/);
    await transport.terminateSession();
  });

  it("an approval-required tool waits, reports where to approve, and runs once approved", async () => {
    writeFileSync(join(ws, "edit.txt"), "old text");
    const { client, transport } = await fleetClient(worker.url);
    const progress: string[] = [];
    const pending = client.callTool(
      {
        name: `${AGENT}__edit_file`,
        arguments: { path: join(ws, "edit.txt"), edits: [{ oldText: "old", newText: "new" }] },
      },
      undefined,
      { onprogress: (p) => progress.push(p.message ?? "") },
    );
    const approvalPath = await waitUntil(
      async () => progress.find((m) => m.startsWith("waiting for approval")),
      (m) => m !== undefined,
      { what: "the approval progress message" },
    );
    const path = approvalPath!.split(": POST ")[1]!;
    const decided = await api<{ approved: boolean }>(path, { method: "POST", body: JSON.stringify({ approve: true }) });
    expect(decided.approved).toBe(true);
    const result = await pending;
    expect(result.isError).toBeFalsy();
    expect(readFileSync(join(ws, "edit.txt"), "utf8")).toBe("new text");
    expect(progress).toContain("edit_file done");
    await transport.terminateSession();
  });

  it("the client's cancel (notifications/cancelled) cancels the call on the device", async () => {
    const { client, transport } = await fleetClient(worker.url);
    const abort = new AbortController();
    let started = false;
    const call = client.callTool(
      { name: `${AGENT}__trigger-long-running-operation`, arguments: { duration: 30, steps: 30 } },
      undefined,
      { signal: abort.signal, onprogress: () => (started = true) },
    );
    const rejected = expect(call).rejects.toThrow();
    await waitUntil(async () => started, Boolean, { what: "the call to start" });
    abort.abort("changed my mind");
    await rejected;
    const cancelled = await waitUntil(
      () =>
        api<{ conversations: { conversation_id: string; status: string }[] }>(
          `/v1/conversations?agent_id=${AGENT}&status=cancelled`,
        ),
      (v) => v.conversations.some((c) => c.conversation_id.startsWith("mcp_")),
      { what: "the call's conversation to be cancelled" },
    );
    const id = cancelled.conversations.find((c) => c.conversation_id.startsWith("mcp_"))!.conversation_id;
    const audit = await waitUntil(
      () =>
        api<{ entries: { conversation_id: string; error_type: string | null }[] }>(
          `/v1/audit?agent_id=${AGENT}`,
          {},
          ADMIN_TOKEN,
        ),
      (a) => a.entries.some((e) => e.conversation_id === id),
      { what: "the cancelled call's audit row" },
    );
    expect(audit.entries.find((e) => e.conversation_id === id)!.error_type).toBe("cancelled");
    await transport.terminateSession();
  });

  it("send_message returns the agent's reply and streams progress while the loop runs", async () => {
    const { client, transport } = await fleetClient(worker.url);
    const progress: string[] = [];
    const result = await client.callTool(
      { name: "send_message", arguments: { agent_id: AGENT, text: "what is in the workspace?" } },
      undefined,
      { onprogress: (p) => progress.push(p.message ?? "") },
    );
    expect(resultText(result)).toMatch(/^Listing: .*note\.txt/s);
    expect(progress).toEqual(["calling list_directory", "list_directory done"]);
    const facts = result.structuredContent as { conversation_id: string; status: string };
    expect(facts.status).toBe("completed");
    const view = await client.callTool({
      name: "get_conversation",
      arguments: { conversation_id: facts.conversation_id },
    });
    expect(JSON.parse(resultText(view)).messages.at(-1).content).toBe(resultText(result));
    const bad = await client.callTool({ name: "send_message", arguments: { text: "no target" } });
    expect(resultText(bad)).toBe("invalid arguments: agent_id: give exactly one of agent_id, agent_ids or pool");
    await transport.terminateSession();
  });

  it("sessions: token, missing and unknown ids, DELETE, GET; a session outlives a restart of the runtime", async () => {
    const post = (headers: Record<string, string>, body: unknown = { jsonrpc: "2.0", id: 1, method: "tools/list" }) =>
      fetch(`${worker.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(body),
      });
    expect((await post({ authorization: "Bearer wrong" })).status).toBe(401);
    const auth = { authorization: `Bearer ${API_TOKEN}` };
    expect((await post(auth)).status).toBe(400);
    expect((await post({ ...auth, "mcp-session-id": "no-such-session" })).status).toBe(404);
    expect((await fetch(`${worker.url}/mcp`, { headers: auth })).status).toBe(405);

    const { transport } = await fleetClient(worker.url);
    const sessionId = transport.sessionId!;
    const open = { ...auth, "mcp-session-id": sessionId };
    expect((await post({ ...open, origin: "https://elsewhere.example" })).status).toBe(403);
    expect((await post({ ...open, "mcp-protocol-version": "1999-01-01" })).status).toBe(400);
    expect((await post(open)).status).toBe(200);
    await worker.kill();
    worker = await startLocalWorker({
      port: worker.port,
      persistDir: worker.persistDir,
      vars: scriptedVars(llm, { [AGENT]: TOKEN }),
    });
    const again = await fleetClient(worker.url, { sessionId });
    expect((await again.client.listTools()).tools.map((t) => t.name)).toContain("send_message");
    await again.transport.terminateSession();
    expect((await post({ ...auth, "mcp-session-id": sessionId })).status).toBe(404);
  });
});
