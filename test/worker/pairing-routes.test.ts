/**
 * /v1/pairing through the real worker: anyone may ask, only an admin decides, only the asking
 * device collects, and what it collects is a working device token, once.
 */
import { describe, expect, it } from "vitest";
import { ADMIN, API, call, connectDevice, uid } from "./support/front-door.js";
import { issueKey, jsonPost } from "./support/keys.js";

type Opened = { code: string; claim_secret: string; expires_at: number; poll_after_ms: number };

async function ask(agentId: string, extra: Record<string, unknown> = {}): Promise<Opened> {
  const res = await call("/v1/pairing", jsonPost({ agent_id: agentId, label: "raspberrypi", ...extra }, {}));
  expect(res.status, await res.clone().text()).toBe(201);
  expect(res.headers.get("cache-control")).toBe("no-store");
  return (await res.json()) as Opened;
}

const claim = (secret: string) =>
  call("/v1/pairing/claim", { method: "POST", headers: { authorization: `Bearer ${secret}` } });
const approve = (code: string, headers: Record<string, string>, body?: unknown) =>
  call(`/v1/pairing/${code}/approve`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const deny = (code: string, headers: Record<string, string>) =>
  call(`/v1/pairing/${code}/deny`, { method: "POST", headers });

describe("/v1/pairing", () => {
  it("pairs a device: ask, approve, collect a token that opens the device socket, once", async () => {
    const agentId = uid("pair");
    const opened = await ask(agentId);
    expect((await (await claim(opened.claim_secret)).json()) as object).toMatchObject({ status: "pending" });

    const list = (await (await call("/v1/pairing", { headers: ADMIN })).json()) as { pending: object[] };
    const row = list.pending.find((p) => (p as { code: string }).code === opened.code);
    expect(row).toMatchObject({ agent_id: agentId, kind: "agent", label: "raspberrypi", known_device: false });
    expect(JSON.stringify(list)).not.toContain(opened.claim_secret);

    // Typed the way a person reads it off a screen: lower case, no dash.
    const res = await approve(opened.code.replace("-", "").toLowerCase(), ADMIN);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ status: "approved", agent_id: agentId, decided_by: "admin" });

    const collected = await claim(opened.claim_secret);
    expect(collected.headers.get("cache-control")).toBe("no-store");
    const body = (await collected.json()) as { status: string; agent_id: string; token: string; token_id: string };
    expect(body).toMatchObject({ status: "approved", agent_id: agentId });
    expect(body.token).toMatch(/^edl_/);

    const device = await connectDevice(agentId, body.token);
    device.hello();
    await device.online();
    const tokens = (await (await call(`/v1/devices/${agentId}/tokens`, { headers: ADMIN })).json()) as {
      tokens: { token_id: string }[];
    };
    expect(tokens.tokens.map((t) => t.token_id)).toEqual([body.token_id]);
    // Revoked as any device token: the socket it opened closes at once.
    const revoked = await call(`/v1/devices/${agentId}/tokens/${body.token_id}`, { method: "DELETE", headers: ADMIN });
    expect(await revoked.json()).toMatchObject({ revoked: true, sockets_closed: 1 });
    expect((await device.closed).code).toBe(4001);

    expect((await claim(opened.claim_secret)).status).toBe(410);
    expect((await approve(opened.code, ADMIN)).status).toBe(409);
    const decided = (await (await call("/v1/pairing", { headers: ADMIN })).json()) as { pending: object[] };
    expect(decided.pending.find((p) => (p as { code: string }).code === opened.code)).toBeUndefined();
  });

  it("approves under the id the admin gives, and warns when an id already has a device", async () => {
    const existing = uid("taken");
    await call(`/v1/devices/${existing}/tokens`, { method: "POST", headers: ADMIN });
    const opened = await ask(existing);
    const list = (await (await call("/v1/pairing", { headers: ADMIN })).json()) as { pending: object[] };
    expect(list.pending.find((p) => (p as { code: string }).code === opened.code)).toMatchObject({
      known_device: true,
    });
    const fresh = uid("renamed");
    expect((await approve(opened.code, ADMIN, { agent_id: fresh })).status).toBe(200);
    expect(await (await claim(opened.claim_secret)).json()).toMatchObject({ status: "approved", agent_id: fresh });
  });

  it("denies: the device is told, and the code cannot be approved afterwards", async () => {
    const opened = await ask(uid("deny"));
    expect((await deny(opened.code, ADMIN)).status).toBe(200);
    expect(await (await claim(opened.claim_secret)).json()).toEqual({ status: "denied" });
    expect((await approve(opened.code, ADMIN)).status).toBe(409);
  });

  it("lets only the admin list and decide: the API token and scoped keys get 403, nobody else 401", async () => {
    const opened = await ask(uid("authz"));
    const key = await issueKey({ name: "tenant", agents: ["*"] });
    for (const headers of [API, key.headers]) {
      expect((await approve(opened.code, headers)).status).toBe(403);
      expect((await deny(opened.code, headers)).status).toBe(403);
      expect((await call("/v1/pairing", { headers })).status).toBe(403);
    }
    expect((await approve(opened.code, {})).status).toBe(401);
    expect((await call("/v1/pairing", {})).status).toBe(401);
    expect((await approve(opened.code, { authorization: "Bearer nope" })).status).toBe(401);
    // The code is still pending: nothing above decided it.
    expect(await (await claim(opened.claim_secret)).json()).toMatchObject({ status: "pending" });
  });

  it("collects only with the claim secret: the code is not enough", async () => {
    const opened = await ask(uid("secret"));
    expect((await approve(opened.code, ADMIN)).status).toBe(200);
    expect((await claim(opened.code)).status).toBe(401);
    expect((await claim("pcl_guessed")).status).toBe(404);
    expect((await call("/v1/pairing/claim", { method: "POST" })).status).toBe(401);
  });

  it("refuses bad input with a problem naming it", async () => {
    const bad = await call("/v1/pairing", jsonPost({ agent_id: "has space" }, {}));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toContain("agent_id");
    expect((await call("/v1/pairing", jsonPost({ agent_id: "x", kind: "robot" }, {}))).status).toBe(400);
    expect((await call("/v1/pairing", jsonPost({ agent_id: "x", extra: 1 }, {}))).status).toBe(400);
    expect((await approve("ABCD-0000", ADMIN)).status).toBe(400);
    expect((await approve("ZZZZ-ZZZZ", ADMIN)).status).toBe(404);
    const opened = await ask(uid("badbody"));
    expect((await approve(opened.code, ADMIN, { agent_id: "no spaces please" })).status).toBe(400);
  });

  it("refuses new requests past PAIRING_MAX_PENDING with 429, and names a bad setting", async () => {
    const full = await call("/v1/pairing", jsonPost({ agent_id: uid("full") }, {}), { PAIRING_MAX_PENDING: "1" });
    // Other tests' requests are waiting in the same object: one is over a cap of one.
    expect([201, 429]).toContain(full.status);
    const again = await call("/v1/pairing", jsonPost({ agent_id: uid("full") }, {}), { PAIRING_MAX_PENDING: "1" });
    expect(again.status).toBe(429);
    expect(again.headers.get("retry-after")).toBe("60");
    const bad = await call("/v1/pairing", jsonPost({ agent_id: uid("bad") }, {}), { PAIRING_CODE_TTL_SECONDS: "5" });
    expect(bad.status).toBe(503);
    expect(((await bad.json()) as { detail: string }).detail).toContain("PAIRING_CODE_TTL_SECONDS");
  });
});
