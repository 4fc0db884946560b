/**
 * Fleets from every place a message can start besides `POST /v1/messages` (docs/fleet.md): the
 * fleet MCP server's `send_message`, schedules and named hooks, each through the front door with
 * its grants and unknown-device rule. The REST side is in fleet.test.ts.
 */
import { describe, expect, it } from "vitest";
import { API, call, knownAgent, uid, waitFor } from "./support/front-door.js";
import { issueKey, jsonPost } from "./support/keys.js";

const MCP_HEADERS = { accept: "application/json, text/event-stream", "content-type": "application/json" };

async function mcp(headers: Record<string, string>, method: string, params: unknown, session?: string) {
  const res = await call("/mcp", {
    method: "POST",
    headers: { ...MCP_HEADERS, ...headers, ...(session ? { "mcp-session-id": session } : {}) },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await res.json()) as { result: Record<string, unknown> };
}

async function mcpSession(headers: Record<string, string>) {
  const res = await call("/mcp", {
    method: "POST",
    headers: { ...MCP_HEADERS, ...headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  });
  const session = res.headers.get("mcp-session-id")!;
  type Result = { isError?: boolean; content: { text: string }[]; structuredContent?: Record<string, unknown> };
  return {
    tools: async () => (await mcp(headers, "tools/list", {}, session)).result.tools as Tool[],
    send: async (args: Record<string, unknown>) =>
      (await mcp(headers, "tools/call", { name: "send_message", arguments: args }, session)).result as Result,
  };
}
type Tool = { name: string; inputSchema: { properties: Record<string, unknown> } };

/** A conversation's home device, as `GET /v1/conversations/:id` shows it. */
const homeOf = async (conversationId: string) =>
  ((await (await call(`/v1/conversations/${conversationId}`, { headers: API })).json()) as { agent_id: string })
    .agent_id;

describe("send_message over a fleet", () => {
  it("describes agent_ids and mode, and starts a conversation over every device, the first its home", async () => {
    const [a, b] = [await knownAgent("ma"), await knownAgent("mb")];
    const s = await mcpSession(API);
    const send = (await s.tools()).find((t) => t.name === "send_message")!;
    expect(Object.keys(send.inputSchema.properties)).toEqual(expect.arrayContaining(["agent_ids", "pool", "mode"]));
    const out = await s.send({ agent_ids: [a, b], text: "hi", wait_seconds: 1 });
    expect(out.structuredContent).toMatchObject({ agent_id: a, agent_ids: [a, b] });
    expect(await homeOf(out.structuredContent!.conversation_id as string)).toBe(a);
  });

  it("refuses as the front door does: an unknown device, a device outside a key's grant, tools with a fleet", async () => {
    const a = await knownAgent("ma");
    const ghost = uid("ghost");
    const s = await mcpSession(API);
    const unknown = await s.send({ agent_ids: [a, ghost], text: "hi", wait_seconds: 1 });
    expect(unknown).toMatchObject({ isError: true });
    expect(unknown.content[0]!.text).toContain(`Unknown device: no device '${ghost}'`);
    const mixed = await s.send({ pool: "lab", mode: "fleet", tools: ["bash"], text: "hi" });
    expect(mixed.content[0]!.text).toBe("invalid arguments: tools: tools goes with a pool that picks one device");

    const b = await knownAgent("mb");
    const key = await issueKey({ name: "one", agents: [a], scopes: ["mcp", "messages"] });
    const scoped = await (await mcpSession(key.headers)).send({ agent_ids: [a, b], text: "hi", wait_seconds: 1 });
    expect(scoped.content[0]!.text).toBe(`Forbidden: agent '${b}' is not one this credential may message`);
  });
});

describe("a schedule over a fleet", () => {
  it("is refused for a key any of whose devices is outside its grant", async () => {
    const [a, b] = [await knownAgent("sa"), await knownAgent("sb")];
    const key = await issueKey({ name: "one", agents: [a], scopes: ["schedules", "messages"] });
    const res = await call("/v1/schedules", jsonPost({ agent_ids: [a, b], text: "t", every_seconds: 60 }, key.headers));
    expect(res.status).toBe(403);
    expect(((await res.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe("agent_ids");
  });

  it("shows its fleet, and each run goes to every device with the first as home", async () => {
    const [a, b] = [await knownAgent("sa"), await knownAgent("sb")];
    const conversation_id = uid("sched-fleet");
    const body = { agent_ids: [a, b], text: "fleet tick", at: Date.now() + 1000, conversation_id };
    const res = await call("/v1/schedules", jsonPost(body, API));
    expect(res.status).toBe(201);
    const { schedule } = (await res.json()) as { schedule: { schedule_id: string } };
    expect(schedule).toMatchObject({ agent_id: null, agent_ids: [a, b], pool: null, mode: null });
    const done = await waitFor(
      async () =>
        (await (await call(`/v1/schedules/${schedule.schedule_id}`, { headers: API })).json()) as {
          state: string;
          last_run: { outcome: string } | null;
        },
      (v) => v.state === "done",
      15_000,
    );
    expect(done.last_run).toMatchObject({ outcome: "posted" });
    expect(await homeOf(conversation_id)).toBe(a);
  });

  it("takes a pool in fleet mode, and a run to a fleet with an unknown device is refused", async () => {
    const a = await knownAgent("sa");
    const ghost = uid("ghost");
    const pooled = await call(
      "/v1/schedules",
      jsonPost({ pool: "lab", mode: "fleet", text: "t", every_seconds: 60 }, API),
    );
    expect(((await pooled.json()) as { schedule: { mode: string } }).schedule.mode).toBe("fleet");
    const res = await call("/v1/schedules", jsonPost({ agent_ids: [a, ghost], text: "t", at: Date.now() + 1000 }, API));
    const { schedule_id } = (await res.json()) as { schedule_id: string };
    const done = await waitFor(
      async () =>
        (await (await call(`/v1/schedules/${schedule_id}`, { headers: API })).json()) as {
          state: string;
          last_run: { outcome: string; error: string } | null;
        },
      (v) => v.state === "done",
      15_000,
    );
    expect(done.last_run).toMatchObject({ outcome: "refused" });
    expect(done.last_run!.error).toContain(`404 Unknown device: no device '${ghost}'`);
  });
});

describe("a named hook over a fleet", () => {
  const deliver = (name: string, vars: Record<string, string>, payload: unknown) =>
    call(
      `/v1/hooks/${name}`,
      {
        method: "POST",
        headers: { authorization: "Bearer hs", "content-type": "application/json" },
        body: JSON.stringify(payload),
      },
      vars,
    );

  it("sends its message to every device of its agent_ids, or of its pool in fleet mode", async () => {
    const [a, b] = [await knownAgent("ha"), await knownAgent("hb")];
    const HOOKS = JSON.stringify({
      devices: { verify: "token", agent_ids: [a, b], template: "build {{status}}" },
      lab: { verify: "token", pool: "lab", mode: "fleet", template: "lab {{status}}" },
    });
    const vars = { HOOKS, HOOK_SECRETS: "devices:hs,lab:hs", POOLS: `lab:${b}|${a}` };
    const toFleet = await deliver("devices", vars, { status: uid("ok") });
    expect(toFleet.status).toBe(202);
    expect(((await toFleet.json()) as { agent_id: string }).agent_id).toBe(a);
    const toPool = await deliver("lab", vars, { status: uid("ok") });
    expect(toPool.status).toBe(202);
    expect(((await toPool.json()) as { agent_id: string }).agent_id).toBe(b);
  });

  it("is refused when a device of its fleet is unknown", async () => {
    const a = await knownAgent("ha");
    const ghost = uid("ghost");
    const HOOKS = JSON.stringify({ h: { verify: "token", agent_ids: [a, ghost], template: "x {{n}}" } });
    const res = await deliver("h", { HOOKS, HOOK_SECRETS: "h:hs" }, { n: uid("n") });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { detail: string }).detail).toContain(ghost);
  });
});
