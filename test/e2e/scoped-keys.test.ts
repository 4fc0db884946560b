/**
 * Scoped API keys end to end, on a real worker with a real device agent: a key follows its own
 * conversation's events over SSE (another key gets 404), the official MCP client with a key sees
 * and calls only that key's devices, and a key's schedule runs as the key until the key is
 * revoked — then its run is refused and counted.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { ADMIN_TOKEN, type LocalWorker } from "../helpers/local-worker.js";
import { fleetClient, resultText } from "../helpers/mcp.js";
import { REPO_ROOT } from "../helpers/processes.js";
import { startScriptedStack } from "../helpers/scripted-stack.js";
import { waitUntil } from "../helpers/wait.js";

const AGENT = "pi-tenant-a";
const TOKEN = "tenant-device-token";
let llm: ScriptedLlm;
let worker: LocalWorker;
let agent: AgentProcess;

async function req(path: string, token: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`${worker.url}${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
}

async function issue(name: string, agents: string[], scopes?: string[]): Promise<{ key_id: string; key: string }> {
  const res = await req("/v1/keys", ADMIN_TOKEN, {
    method: "POST",
    body: { name, agents, ...(scopes ? { scopes } : {}) },
  });
  expect(res.status).toBe(201);
  return res.body as { key_id: string; key: string };
}

/** The SSE stream read until the run's end, as event types. */
async function eventTypes(id: string, key: string): Promise<string[]> {
  const abort = new AbortController();
  const res = await fetch(`${worker.url}/v1/conversations/${id}/events`, {
    headers: { authorization: `Bearer ${key}` },
    signal: abort.signal,
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  let text = "";
  while (!text.includes("event: conversation_end")) {
    const { done, value } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  abort.abort();
  return [...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]!);
}

beforeAll(async () => {
  ({ llm, worker } = await startScriptedStack({
    rules: [
      {
        match: "echo please",
        turns: [{ tool_calls: [{ name: "echo", arguments: { text: "tenant" } }] }, { content: "Echoed." }],
      },
      { match: ".*", turns: [{ content: "Scheduled hello." }] },
    ],
    devices: { [AGENT]: TOKEN },
  }));
  agent = await startAgent({
    url: worker.url,
    agentId: AGENT,
    token: TOKEN,
    skills: [join(REPO_ROOT, "test/fixtures/agent-skills/basic")],
  });
});

afterAll(async () => {
  await agent?.stop();
  await worker?.stop();
  await llm?.close();
});

describe("scoped keys", () => {
  it("a key follows its own conversation live over SSE; another key's stream is 404", async () => {
    const a = await issue("tenant a", [AGENT]);
    const b = await issue("tenant b", ["*"]);
    const sent = await req("/v1/messages", a.key, { method: "POST", body: { agent_id: AGENT, text: "echo please" } });
    expect(sent.status).toBe(202);
    const id = sent.body.conversation_id as string;
    const types = await eventTypes(id, a.key);
    expect(types).toEqual(expect.arrayContaining(["message_start", "tool_execution_start", "tool_execution_end"]));
    expect(types.at(-1)).toBe("conversation_end");
    const foreign = await fetch(`${worker.url}/v1/conversations/${id}/events`, {
      headers: { authorization: `Bearer ${b.key}` },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.headers.get("content-type")).toContain("application/problem+json");
    expect(await foreign.json()).toMatchObject({ title: "Not found", detail: `no conversation '${id}'` });
  });

  it("the MCP client with a key sees and calls only that key's devices and conversations", async () => {
    const a = await issue("mcp a", [AGENT]);
    const b = await issue("mcp b", ["pi-elsewhere"]);
    const mine = await fleetClient(worker.url, { token: a.key });
    const names = (await mine.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["send_message", "list_devices", "get_conversation", `${AGENT}__echo`]),
    );
    const result = await mine.client.callTool({ name: `${AGENT}__echo`, arguments: { text: "from mcp" } });
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toContain("from mcp");

    const theirs = await fleetClient(worker.url, { token: b.key });
    const theirNames = (await theirs.client.listTools()).tools.map((t) => t.name);
    expect(theirNames.some((n) => n.startsWith(`${AGENT}__`))).toBe(false);
    const call = await theirs.client.callTool({ name: `${AGENT}__echo`, arguments: { text: "sneak" } });
    expect(resultText(call)).toContain("unknown tool");
    const devices = await theirs.client.callTool({ name: "list_devices", arguments: {} });
    expect(resultText(devices)).not.toContain(AGENT);
    // The conversation the first client's call made is a's: b cannot read it.
    const own = (await req("/v1/conversations?limit=100", a.key)).body.conversations as { conversation_id: string }[];
    const callConversation = own.find((c) => c.conversation_id.startsWith("mcp_"));
    expect(callConversation).toBeDefined();
    const peek = await theirs.client.callTool({
      name: "get_conversation",
      arguments: { conversation_id: callConversation!.conversation_id },
    });
    expect(resultText(peek)).toBe(`no conversation '${callConversation!.conversation_id}'`);
    // b's token on a's session: no such session.
    const hijack = await fleetClient(worker.url, { token: b.key, sessionId: mine.transport.sessionId! }).catch(
      (e: Error) => e,
    );
    const listed = hijack instanceof Error ? hijack : await hijack.client.listTools().catch((e: Error) => e);
    expect(String(listed)).toMatch(/404|Session not found/);
    await mine.client.close();
    await theirs.client.close();
  });

  it("a key's schedule runs as the key, and stops being run once the key is revoked", async () => {
    const c = await issue("sched c", [AGENT]);
    const first = await req("/v1/schedules", c.key, {
      method: "POST",
      body: { agent_id: AGENT, text: "scheduled hello", at: Date.now() + 1500 },
    });
    expect(first.status).toBe(201);
    const id = first.body.schedule_id as string;
    const ran = await waitUntil(
      () => req(`/v1/schedules/${id}`, c.key),
      (r) => r.body.state === "done",
      { timeoutMs: 20_000, what: "the first run" },
    );
    expect(ran.body).toMatchObject({ runs: 1, last_run: { outcome: "posted" } });
    const conversation = (ran.body.last_run as { conversation_id: string }).conversation_id;
    expect((await req(`/v1/conversations/${conversation}`, c.key)).status).toBe(200);

    const second = await req("/v1/schedules", c.key, {
      method: "POST",
      body: { agent_id: AGENT, text: "scheduled hello", at: Date.now() + 1500 },
    });
    const id2 = second.body.schedule_id as string;
    expect((await req(`/v1/keys/${c.key_id}`, ADMIN_TOKEN, { method: "DELETE" })).status).toBe(200);
    const refused = await waitUntil(
      () => req(`/v1/schedules/${id2}`, ADMIN_TOKEN),
      (r) => r.body.state === "done",
      { timeoutMs: 20_000, what: "the run after revoking" },
    );
    expect(refused.body).toMatchObject({ runs: 0, failures: 1, last_run: { outcome: "refused" } });
    const limits = await req("/v1/limits", ADMIN_TOKEN);
    expect((limits.body.rejections as Record<string, number>)["scheduled run 403 Key revoked"]).toBe(1);
    expect((await req(`/v1/schedules/${id2}`, c.key)).status).toBe(401);
  });
});
