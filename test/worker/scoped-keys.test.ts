/**
 * Scoped API keys through the real worker and its objects: the admin API that issues them, and
 * the rule that a key messages only its devices and sees only the conversations it started — every
 * other conversation answers 404 exactly as one that does not exist, on every route.
 */
import { describe, expect, it } from "vitest";
import { ADMIN, API, call, knownAgent, postMessage, uid, waitFor } from "./support/front-door.js";
import { issueKey, jsonPost, problemOf } from "./support/keys.js";

type Row = { conversation_id: string; owner: string | null };

const listed = async (headers: Record<string, string>, q = "") => {
  const res = await call(`/v1/conversations?limit=1000${q}`, { headers });
  expect(res.status).toBe(200);
  return ((await res.json()) as { conversations: Row[] }).conversations.map((r) => r.conversation_id);
};

async function start(headers: Record<string, string>, body: Record<string, unknown>): Promise<string> {
  const res = await postMessage({ text: "hello", ...body }, headers);
  expect(res.status, await res.clone().text()).toBe(202);
  return ((await res.json()) as { conversation_id: string }).conversation_id;
}

describe("/v1/keys (admin)", () => {
  it("issues a key once, lists it without the key, and revokes it at once", async () => {
    const agent = await knownAgent("k-dev");
    const res = await call("/v1/keys", jsonPost({ name: "tenant a", agents: [agent] }, ADMIN));
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const issued = (await res.json()) as { key_id: string; key: string; scopes: string[]; agents: string[] };
    expect(issued.key).toMatch(/^edk_[A-Za-z0-9_-]{43}$/);
    expect(issued.key_id).toMatch(/^key_[0-9a-f]{16}$/);
    expect(issued.agents).toEqual([agent]);
    expect(issued.scopes).toContain("conversations:read");

    const list = (await (await call("/v1/keys", { headers: ADMIN })).json()) as { keys: Record<string, unknown>[] };
    const row = list.keys.find((k) => k.key_id === issued.key_id)!;
    expect(row).toMatchObject({ name: "tenant a", revoked_at: null });
    expect(JSON.stringify(list)).not.toContain(issued.key);
    expect(Object.keys(row)).not.toContain("hash");

    const key = { authorization: `Bearer ${issued.key}` };
    expect((await postMessage({ agent_id: agent, text: "hi" }, key)).status).toBe(202);
    const revoked = await call(`/v1/keys/${issued.key_id}`, { method: "DELETE", headers: ADMIN });
    expect(await revoked.json()).toMatchObject({ key_id: issued.key_id, revoked: true, already_revoked: false });
    // The very next request with it is refused.
    expect((await postMessage({ agent_id: agent, text: "hi" }, key)).status).toBe(401);
    expect((await call("/v1/conversations", { headers: key })).status).toBe(401);
    const again = await call(`/v1/keys/${issued.key_id}`, { method: "DELETE", headers: ADMIN });
    expect(await again.json()).toMatchObject({ already_revoked: true });
  });

  it("is the admin's alone, and refuses bad requests naming the field", async () => {
    const a = await issueKey({ name: "a", agents: ["*"] });
    const body = { name: "x", agents: ["pi-1"] };
    expect((await call("/v1/keys", jsonPost(body, API))).status).toBe(403);
    expect((await call("/v1/keys", jsonPost(body, a.headers))).status).toBe(403);
    expect((await call("/v1/keys", { headers: a.headers })).status).toBe(403);
    expect((await call(`/v1/keys/${a.key_id}`, { method: "DELETE", headers: a.headers })).status).toBe(403);
    const cases: [unknown, string][] = [
      [{ name: "x" }, "agents"],
      [{ name: "x", agents: ["pi 1"] }, "agents.0"],
      [{ name: "x", agents: ["*"], scopes: ["root"] }, "scopes.0"],
      [{ name: "", agents: ["*"] }, "name"],
      [{ name: "x", agents: ["*"], owner: "me" }, ""],
      [{ name: "x", pools: ["no-such-pool"] }, "pools"],
    ];
    for (const [bad, path] of cases) {
      const res = await call("/v1/keys", jsonPost(bad, ADMIN));
      expect(res.status, JSON.stringify(bad)).toBe(400);
      const problem = (await res.json()) as { errors: { path: string }[] };
      expect(problem.errors[0]!.path, JSON.stringify(bad)).toBe(path);
    }
    const malformed = await call("/v1/keys", { ...jsonPost({}, ADMIN), body: "{nope" });
    expect(await problemOf(malformed)).toMatchObject({ status: 400, title: "Malformed JSON" });
    expect((await call("/v1/keys/not-a-key", { method: "DELETE", headers: ADMIN })).status).toBe(400);
    expect((await call("/v1/keys/key_0000000000000000", { method: "DELETE", headers: ADMIN })).status).toBe(404);
    // A token that merely looks like a key is an unknown token.
    expect((await call("/v1/conversations", { headers: { authorization: "Bearer edk_nope" } })).status).toBe(401);
  });
});

describe("a scoped key messages only its devices", () => {
  it("refuses other agents and pools with 403 naming the field", async () => {
    const mine = await knownAgent("own-dev");
    const a = await issueKey({ name: "a", agents: [mine] });
    expect((await postMessage({ agent_id: mine, text: "hi" }, a.headers)).status).toBe(202);
    const other = await postMessage({ agent_id: await knownAgent("other-dev"), text: "hi" }, a.headers);
    expect(other.status).toBe(403);
    expect(await other.json()).toMatchObject({ errors: [{ path: "agent_id" }] });
    const pool = await postMessage({ pool: "kitchen", text: "hi" }, a.headers, { POOLS: `kitchen:${mine}` });
    expect(pool.status).toBe(403);
    expect(await pool.json()).toMatchObject({ errors: [{ path: "pool" }] });
    // A key with the pool reaches it and its members.
    const p = await issueKey({ name: "p", pools: ["kitchen"] }, { POOLS: `kitchen:${mine}` });
    const viaPool = await postMessage({ agent_id: mine, text: "hi" }, p.headers, { POOLS: `kitchen:${mine}` });
    expect(viaPool.status).toBe(202);
  });

  it("needs the scope for what it does", async () => {
    const dev = await knownAgent("scope-dev");
    const reader = await issueKey({ name: "r", agents: [dev], scopes: ["conversations:read"] });
    const refused = await postMessage({ agent_id: dev, text: "hi" }, reader.headers);
    expect(await problemOf(refused)).toMatchObject({ status: 403, title: "Forbidden" });
    expect((await call("/v1/conversations", { headers: reader.headers })).status).toBe(200);
    expect((await call("/v1/conversations/x/cancel", jsonPost({}, reader.headers))).status).toBe(403);
    expect((await call("/v1/schedules", { headers: reader.headers })).status).toBe(403);
    expect((await call("/v1/approval-rules", { headers: reader.headers })).status).toBe(403);
    expect((await call("/v1/devices", { headers: reader.headers })).status).toBe(403);
  });
});

describe("a scoped key sees only the conversations it started", () => {
  it("every route answers 404 for another key's conversation, exactly as for none", async () => {
    const dev = await knownAgent("iso-dev");
    const a = await issueKey({ name: "a", agents: [dev] });
    const b = await issueKey({ name: "b", agents: ["*"] });
    const mine = await start(a.headers, { agent_id: dev, conversation_id: uid("conv-a") });
    const missing = uid("conv-none");

    const routes: [string, (id: string) => RequestInit][] = [
      ["", () => ({})],
      ["/events", () => ({})],
      ["/canvas", () => ({})],
      ["/cancel", () => ({ method: "POST" })],
      ["/approvals/call_1", () => jsonPost({ approve: true }, {})],
      ["/answers/call_1", () => jsonPost({ answer: "yes" }, {})],
    ];
    for (const [suffix, init] of routes) {
      const as = (id: string, headers: Record<string, string>) => {
        const i = init(id);
        return call(`/v1/conversations/${id}${suffix}`, { ...i, headers: { ...(i.headers ?? {}), ...headers } });
      };
      const foreign = await problemOf(await as(mine, b.headers));
      const none = await problemOf(await as(missing, b.headers));
      expect(foreign, suffix).toEqual({ ...none, detail: none.detail!.replace(missing, mine) });
      expect(foreign.status, suffix).toBe(404);
    }

    // The owner and the unscoped tokens reach it.
    expect((await call(`/v1/conversations/${mine}`, { headers: a.headers })).status).toBe(200);
    expect((await call(`/v1/conversations/${mine}`, { headers: API })).status).toBe(200);
    const events = await call(`/v1/conversations/${mine}/events`, { headers: a.headers });
    expect(events.status).toBe(200);
    expect(events.headers.get("content-type")).toContain("text/event-stream");
    const reader = events.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("event: message_start");
    await reader.cancel();
    // Its own conversation's refusals say what is really missing.
    const canvas = await problemOf(await call(`/v1/conversations/${mine}/canvas`, { headers: a.headers }));
    expect(canvas.detail).toContain("has no canvas");
    const approval = await call(`/v1/conversations/${mine}/approvals/call_1`, jsonPost({ approve: true }, a.headers));
    expect((await problemOf(approval)).detail).toContain("no pending call");
    expect((await call(`/v1/conversations/${mine}/cancel`, jsonPost({}, a.headers))).status).toBe(200);
  });

  it("lists only its own; the unscoped tokens list everyone's, with the owner", async () => {
    const dev = await knownAgent("list-dev");
    const a = await issueKey({ name: "a", agents: [dev] });
    const b = await issueKey({ name: "b", agents: [dev] });
    const ca = await start(a.headers, { agent_id: dev });
    const cb = await start(b.headers, { agent_id: dev });
    const capi = await start(API, { agent_id: dev });
    const all = await waitFor(
      () => listed(API, `&agent_id=${dev}`),
      (ids) => [ca, cb, capi].every((id) => ids.includes(id)),
    );
    expect(all).toEqual(expect.arrayContaining([ca, cb, capi]));
    expect(await listed(a.headers, `&agent_id=${dev}`)).toEqual([ca]);
    expect(await listed(b.headers)).toEqual([cb]);
    const rows = (await (await call(`/v1/conversations?agent_id=${dev}`, { headers: ADMIN })).json()) as {
      conversations: Row[];
    };
    expect(rows.conversations.find((r) => r.conversation_id === ca)!.owner).toBe(`key:${a.key_id}`);
    expect(rows.conversations.find((r) => r.conversation_id === capi)!.owner).toBe("api");
  });

  it("cannot attach to another's conversation by choosing its id", async () => {
    const dev = await knownAgent("attach-dev");
    const a = await issueKey({ name: "a", agents: [dev] });
    const b = await issueKey({ name: "b", agents: [dev] });
    const taken = await start(a.headers, { agent_id: dev, conversation_id: uid("chosen") });
    const fromApi = await start(API, { agent_id: dev });
    for (const id of [taken, fromApi]) {
      const res = await postMessage({ agent_id: dev, conversation_id: id, text: "let me in" }, b.headers);
      expect(await problemOf(res)).toEqual({ status: 404, title: "Not found", detail: `no conversation '${id}'` });
    }
    const view = (await (await call(`/v1/conversations/${taken}`, { headers: API })).json()) as {
      messages: { role: string; content: string }[];
    };
    expect(view.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["hello"]);
    // Its own chosen ids, and its own conversations again, are fine; the API token may post anywhere.
    const own = await start(b.headers, { agent_id: dev, conversation_id: uid("b-chosen") });
    expect((await postMessage({ agent_id: dev, conversation_id: own, text: "again" }, b.headers)).status).toBe(202);
    expect((await postMessage({ agent_id: dev, conversation_id: taken, text: "admin here" }, API)).status).toBe(202);
  });

  it("has its own rate limit and idempotency keys", async () => {
    const dev = await knownAgent("lim-dev");
    const tight = { RATE_LIMIT_SENDER_BURST: "1", RATE_LIMIT_SENDER_PER_MIN: "1" };
    const a = await issueKey({ name: "a", agents: [dev] });
    const b = await issueKey({ name: "b", agents: [dev] });
    expect((await postMessage({ agent_id: dev, text: "1" }, a.headers, tight)).status).toBe(202);
    expect((await postMessage({ agent_id: dev, text: "2" }, a.headers, tight)).status).toBe(429);
    expect((await postMessage({ agent_id: dev, text: "1" }, b.headers, tight)).status).toBe(202);

    const c = await issueKey({ name: "c", agents: [dev] });
    const d = await issueKey({ name: "d", agents: [dev] });
    const key = { "idempotency-key": uid("same-key") };
    const body = { agent_id: dev, text: "once" };
    const first = await postMessage(body, { ...c.headers, ...key });
    const other = await postMessage(body, { ...d.headers, ...key });
    const repeat = await postMessage(body, { ...c.headers, ...key });
    expect([first.status, other.status, repeat.status]).toEqual([202, 202, 202]);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(repeat.headers.get("idempotent-replayed")).toBe("true");
    const ids = await Promise.all(
      [first, other, repeat].map(async (r) => (await r.json()) as { conversation_id: string }),
    );
    expect(ids[0]!.conversation_id).toBe(ids[2]!.conversation_id);
    expect(ids[1]!.conversation_id).not.toBe(ids[0]!.conversation_id);
  });
});
