/**
 * Scoped keys beyond messages and conversations: schedules (checked against the key at every run),
 * approval rules (its devices, its conversations), the device list, the fleet's MCP server, and
 * webhook senders bound by WEBHOOK_SCOPES; plus a reply_url that is not a public address.
 */
import { env } from "cloudflare:test";
import { signHmacWebhook } from "@edgeloop/protocol/webhook-signatures";
import { describe, expect, it } from "vitest";
import { conversationFor, deploymentOf, schedulerOf } from "../../durable-objects/addresses.js";
import { rulesFor } from "../../durable-objects/deployment/rules-for.js";
import { ADMIN, API, call, connectDevice, knownAgent, postMessage, uid, waitFor } from "./support/front-door.js";
import { issueKey, jsonPost, problemOf } from "./support/keys.js";

async function schedule(headers: Record<string, string>, body: Record<string, unknown>) {
  return call("/v1/schedules", jsonPost({ text: "tick", ...body }, headers));
}

describe("schedules made with a scoped key", () => {
  it("are the key's alone, aimed only at its devices and conversations", async () => {
    const dev = await knownAgent("sk-dev");
    const a = await issueKey({ name: "a", agents: [dev] });
    const b = await issueKey({ name: "b", agents: ["*"] });
    const res = await schedule(a.headers, { agent_id: dev, cron: "0 8 * * *" });
    expect(res.status).toBe(201);
    const { schedule_id } = (await res.json()) as { schedule_id: string };
    for (const [path, init] of [
      [`/v1/schedules/${schedule_id}`, { headers: b.headers }],
      [`/v1/schedules/${schedule_id}/pause`, jsonPost({}, b.headers)],
      [`/v1/schedules/${schedule_id}`, { method: "DELETE", headers: b.headers }],
    ] as const)
      expect((await call(path, init)).status, path).toBe(404);
    const ids = async (headers: Record<string, string>) =>
      (
        (await (await call("/v1/schedules", { headers })).json()) as { schedules: { schedule_id: string }[] }
      ).schedules.map((s) => s.schedule_id);
    expect(await ids(a.headers)).toEqual([schedule_id]);
    expect(await ids(b.headers)).not.toContain(schedule_id);
    expect(await ids(API)).toContain(schedule_id);
    expect((await call(`/v1/schedules/${schedule_id}/pause`, jsonPost({}, a.headers))).status).toBe(200);

    const outside = await schedule(a.headers, { agent_id: await knownAgent("not-mine"), cron: "0 8 * * *" });
    expect(await outside.json()).toMatchObject({ status: 403, errors: [{ path: "agent_id" }] });
    const theirs = (await (await postMessage({ agent_id: dev, text: "x" }, b.headers)).json()) as {
      conversation_id: string;
    };
    const attach = await schedule(a.headers, {
      agent_id: dev,
      conversation_id: theirs.conversation_id,
      cron: "0 8 * * *",
    });
    expect(await problemOf(attach)).toMatchObject({
      status: 404,
      detail: `no conversation '${theirs.conversation_id}'`,
    });
  });

  it("post each run as the key, and a revoked key's run is refused and counted", async () => {
    const dev = await knownAgent("sk-run");
    const a = await issueKey({ name: "a", agents: [dev] });
    const conversation_id = uid("sk-conv");
    const counted = async () => {
      const limits = (await (await call("/v1/limits", { headers: ADMIN })).json()) as {
        rejections: Record<string, number>;
      };
      return limits.rejections["scheduled run 403 Key revoked"] ?? 0;
    };
    // The scheduler's own alarm runs them (a second, manual alarm would race it).
    const settled = (id: string) =>
      waitFor(
        () => schedulerOf(env).get(id),
        (s) => s !== null && s.state === "done",
      );
    const first = await schedule(a.headers, { agent_id: dev, conversation_id, at: Date.now() + 300 });
    const s1 = ((await first.json()) as { schedule_id: string }).schedule_id;
    expect(await settled(s1)).toMatchObject({ runs: 1, last_run: { outcome: "posted", conversation_id } });
    expect(await conversationFor(env, conversation_id).ownership()).toEqual({ exists: true, owner: `key:${a.key_id}` });

    const before = await counted();
    const second = await schedule(a.headers, { agent_id: dev, at: Date.now() + 300 });
    const s2 = ((await second.json()) as { schedule_id: string }).schedule_id;
    await call(`/v1/keys/${a.key_id}`, { method: "DELETE", headers: ADMIN });
    const refused = await settled(s2);
    expect(refused).toMatchObject({ runs: 0, failures: 1, last_run: { outcome: "refused" } });
    expect(refused!.last_run!.error).toContain("403 Key revoked");
    expect(await waitFor(counted, (n) => n === before + 1)).toBe(before + 1);
  });
});

describe("approval rules made with a scoped key", () => {
  it("are for its devices, seen by it alone, and answer only for its conversations", async () => {
    const dev = await knownAgent("rk-dev");
    const a = await issueKey({ name: "a", agents: [dev] });
    const b = await issueKey({ name: "b", agents: [dev] });
    const rule = (body: Record<string, unknown>, headers = a.headers) =>
      call("/v1/approval-rules", jsonPost({ effect: "allow", tool: "bash", ...body }, headers));
    expect(await (await rule({})).json()).toMatchObject({ status: 403, errors: [{ path: "agent_id" }] });
    expect((await rule({ agent_id: await knownAgent("other") })).status).toBe(403);
    const made = await rule({ agent_id: dev });
    expect(made.status).toBe(201);
    const r = (await made.json()) as { rule_id: string; owner: string };
    expect(r.owner).toBe(`key:${a.key_id}`);

    expect((await call(`/v1/approval-rules/${r.rule_id}`, { headers: b.headers })).status).toBe(404);
    expect((await call(`/v1/approval-rules/${r.rule_id}`, { method: "DELETE", headers: b.headers })).status).toBe(404);
    const list = async (headers: Record<string, string>) =>
      (
        (await (await call(`/v1/approval-rules?agent_id=${dev}`, { headers })).json()) as {
          rules: { rule_id: string }[];
        }
      ).rules.map((x) => x.rule_id);
    expect(await list(b.headers)).toEqual([]);
    expect(await list(a.headers)).toEqual([r.rule_id]);
    expect(await list(API)).toEqual([r.rule_id]);

    // What a conversation of each owner is given when a message arrives.
    const forAgent = async (agentId: string, owner: string) =>
      rulesFor(await deploymentOf(env).rulesInForce(), agentId, owner, Date.now());
    expect((await forAgent(dev, `key:${a.key_id}`)).map((x) => x.rule_id)).toEqual([r.rule_id]);
    expect(await forAgent(dev, `key:${b.key_id}`)).toEqual([]);
    expect(await forAgent(dev, "api")).toEqual([]);
    // A deployment-wide rule (made with the API token) answers for everyone's.
    const wide = (await (await rule({ agent_id: dev }, API)).json()) as { rule_id: string; owner: null };
    expect(wide.owner).toBeNull();
    expect((await forAgent(dev, `key:${b.key_id}`)).map((x) => x.rule_id)).toEqual([wide.rule_id]);
    expect((await call(`/v1/approval-rules/${wide.rule_id}`, { method: "DELETE", headers: a.headers })).status).toBe(
      404,
    );
  });
});

describe("devices and admin views for a scoped key", () => {
  it("lists only its devices; the audit, metrics, limits and tokens stay the admin's", async () => {
    const mine = await knownAgent("dk-mine");
    const other = await knownAgent("dk-other");
    for (const id of [mine, other]) {
      const d = await connectDevice(id, "s", { DEVICE_TOKENS: `${id}:s` });
      d.hello();
      await d.online();
      d.ws.close(1000, "done");
    }
    const a = await issueKey({ name: "a", agents: [mine] });
    const body = (await (await call("/v1/devices", { headers: a.headers })).json()) as {
      devices: { agent_id: string }[];
    };
    expect(body.devices.map((d) => d.agent_id)).toEqual([mine]);
    expect((await call(`/v1/devices/${mine}`, { headers: a.headers })).status).toBe(200);
    expect((await call(`/v1/devices/${other}`, { headers: a.headers })).status).toBe(404);
    for (const path of ["/v1/audit", "/v1/metrics", "/v1/limits", `/v1/devices/${mine}/tokens`, "/v1/keys"])
      expect((await call(path, { headers: a.headers })).status, path).toBe(403);
  });
});

const MCP_HEADERS = { accept: "application/json, text/event-stream", "content-type": "application/json" };

async function mcp(headers: Record<string, string>, method: string, params: unknown, session?: string) {
  const res = await call("/mcp", {
    method: "POST",
    headers: { ...MCP_HEADERS, ...headers, ...(session ? { "mcp-session-id": session } : {}) },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return { res, body: res.status === 200 ? ((await res.json()) as { result?: Record<string, unknown> }) : null };
}

describe("the fleet's MCP server with a scoped key", () => {
  it("offers only the key's devices and conversations, in sessions only it can use", async () => {
    const mine = await knownAgent("mk-mine");
    const other = await knownAgent("mk-other");
    for (const id of [mine, other]) {
      const d = await connectDevice(id, "s", { DEVICE_TOKENS: `${id}:s` });
      d.hello();
      await d.online();
    }
    const a = await issueKey({ name: "a", agents: [mine], scopes: ["mcp", "tools", "conversations:read"] });
    const b = await issueKey({ name: "b", agents: ["*"] });
    const init = await mcp(a.headers, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    });
    const session = init.res.headers.get("mcp-session-id")!;
    expect(session).toBeTruthy();
    const tools = (await mcp(a.headers, "tools/list", {}, session)).body!.result!.tools as { name: string }[];
    const names = tools.map((t) => t.name);
    expect(names).toContain("get_conversation");
    expect(names).not.toContain("send_message");
    expect(names).not.toContain("list_devices");
    expect(names).toContain(`${mine}__bash`);
    expect(names.some((n) => n.startsWith(`${other}__`))).toBe(false);

    const called = async (name: string, args: Record<string, unknown>) =>
      (await mcp(a.headers, "tools/call", { name, arguments: args }, session)).body!.result as {
        isError?: boolean;
        content: { text: string }[];
      };
    expect((await called(`${other}__bash`, { command: "id" })).content[0]!.text).toContain("unknown tool");
    expect((await called("send_message", { agent_id: mine, text: "x" })).content[0]!.text).toContain("unknown tool");
    const theirs = (await (await postMessage({ agent_id: mine, text: "x" }, b.headers)).json()) as {
      conversation_id: string;
    };
    const peek = await called("get_conversation", { conversation_id: theirs.conversation_id });
    expect(peek).toMatchObject({ isError: true, content: [{ text: `no conversation '${theirs.conversation_id}'` }] });

    // Another key (or a key without the scope) does not get in.
    expect((await mcp(b.headers, "tools/list", {}, session)).res.status).toBe(404);
    const noMcp = await issueKey({ name: "c", agents: [mine], scopes: ["messages"] });
    expect((await mcp(noMcp.headers, "tools/list", {}, session)).res.status).toBe(403);
  });
});

describe("webhook senders bound by WEBHOOK_SCOPES", () => {
  it("message only their devices and continue only their own conversations", async () => {
    const dev = await knownAgent("wh-dev");
    const vars = {
      WEBHOOK_SECRETS: "bound:bound-secret",
      WEBHOOK_SCOPES: JSON.stringify({ bound: { agents: [dev] } }),
    };
    const signed = async (body: Record<string, unknown>) => {
      const raw = JSON.stringify(body);
      const ts = String(Math.floor(Date.now() / 1000));
      const sig = await signHmacWebhook("bound-secret", ts, raw);
      return postMessage(raw, { "x-webhook-signature": sig, "x-webhook-timestamp": ts }, vars);
    };
    const ok = await signed({ agent_id: dev, text: "hi" });
    expect(ok.status).toBe(202);
    const { conversation_id } = (await ok.json()) as { conversation_id: string };
    expect(await conversationFor(env, conversation_id).ownership()).toEqual({ exists: true, owner: "webhook:bound" });
    expect((await signed({ agent_id: await knownAgent("elsewhere"), text: "hi" })).status).toBe(403);
    const apiConversation = (await (await postMessage({ agent_id: dev, text: "x" }, API)).json()) as {
      conversation_id: string;
    };
    expect((await signed({ agent_id: dev, conversation_id: apiConversation.conversation_id, text: "hi" })).status).toBe(
      404,
    );
    expect((await signed({ agent_id: dev, conversation_id, text: "again" })).status).toBe(202);

    const typo = await postMessage({ agent_id: dev, text: "x" }, API, {
      ...vars,
      WEBHOOK_SCOPES: JSON.stringify({ bounds: { agents: [dev] } }),
    });
    expect(await problemOf(typo)).toMatchObject({ status: 500, detail: expect.stringContaining("WEBHOOK_SCOPES") });
  });
});

describe("reply_url", () => {
  it("must be a public https address unless the local-testing flag is set", async () => {
    for (const reply_url of [
      "http://127.0.0.1:9/hook",
      "https://169.254.169.254/",
      "https://[::1]/",
      "https://localhost/",
    ]) {
      const res = await postMessage({ agent_id: await knownAgent("r"), text: "x", reply_url }, API);
      expect(await res.json(), reply_url).toMatchObject({
        status: 400,
        title: "Invalid reply_url",
        errors: [{ path: "reply_url" }],
      });
    }
    const allowed = await postMessage(
      { agent_id: await knownAgent("r"), text: "x", reply_url: "http://127.0.0.1:9/hook" },
      API,
      {
        ALLOW_PRIVATE_OUTBOUND: "true",
      },
    );
    expect(allowed.status).toBe(202);
  });
});
