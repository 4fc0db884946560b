import { env, runInDurableObject } from "cloudflare:test";
import { signStandardWebhook } from "@edgeloop/protocol/webhook-signatures";
import { describe, expect, it } from "vitest";
import { LimiterDO } from "../../durable-objects/front-door/limiter-do.js";
import { ADMIN, API, call, knownAgent, postMessage, uid } from "./support/front-door.js";

/** A webhook sender of its own, so its rate-limit bucket is this test's alone. */
async function signedBy(sender: string, body: string) {
  const id = uid("msg");
  const ts = String(Math.floor(Date.now() / 1000));
  return {
    headers: {
      "webhook-id": id,
      "webhook-timestamp": ts,
      "webhook-signature": await signStandardWebhook("limits-secret", id, ts, body),
    },
    vars: { WEBHOOK_SECRETS: `${sender}:limits-secret` },
  };
}

async function rejections(): Promise<Record<string, number>> {
  const res = await call("/v1/limits", { headers: ADMIN });
  expect(res.status).toBe(200);
  return ((await res.json()) as { rejections: Record<string, number> }).rejections;
}

describe("front-door limits", () => {
  it("refuses a body over MAX_BODY_BYTES with 413, its images' room aside", async () => {
    const big = JSON.stringify({ agent_id: "pi-1", text: "x".repeat(300 * 1024) });
    const res = await postMessage(big, API);
    expect(res.status).toBe(413);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(((await res.json()) as { title: string }).title).toBe("Payload too large");
    // Configurable: the same body under a larger limit is read (and then refused for its text).
    const roomy = await postMessage(big, API, { MAX_BODY_BYTES: String(1024 * 1024) });
    expect(roomy.status).toBe(400);
  });

  it("refuses text over MAX_TEXT_CHARS with 413 naming the field", async () => {
    const res = await postMessage({ agent_id: await knownAgent("a"), text: "x".repeat(11) }, API, {
      MAX_TEXT_CHARS: "10",
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ title: "Text too long", errors: [{ path: "text" }] });
  });

  it("rate-limits a sender: 429 with Retry-After once its bucket is empty", async () => {
    const sender = uid("sndr");
    const tight = { RATE_LIMIT_SENDER_BURST: "2", RATE_LIMIT_SENDER_PER_MIN: "6" };
    const statuses: number[] = [];
    let last: Response | null = null;
    // Made first: making a device takes time the bucket would refill in.
    const agents = [await knownAgent("a"), await knownAgent("a"), await knownAgent("a"), await knownAgent("a")];
    for (let i = 0; i < 3; i++) {
      const body = JSON.stringify({ agent_id: agents[i], text: `m${i}` });
      const s = await signedBy(sender, body);
      last = await postMessage(body, s.headers, { ...s.vars, ...tight });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([202, 202, 429]);
    // 6 per minute: one token every 10 s.
    const retryAfter = Number(last!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(9);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect(await last!.json()).toMatchObject({ status: 429, title: "Too many requests" });
    // Another sender is not affected.
    const body = JSON.stringify({ agent_id: agents[3], text: "other" });
    const other = await signedBy(uid("sndr"), body);
    expect((await postMessage(body, other.headers, { ...other.vars, ...tight })).status).toBe(202);
  });

  it("rate-limits an agent across senders", async () => {
    const agent = await knownAgent("busy");
    const tight = { RATE_LIMIT_AGENT_BURST: "1", RATE_LIMIT_AGENT_PER_MIN: "1" };
    expect((await postMessage({ agent_id: agent, text: "1" }, API, tight)).status).toBe(202);
    const body = JSON.stringify({ agent_id: agent, text: "2" });
    const s = await signedBy(uid("sndr"), body);
    const res = await postMessage(body, s.headers, { ...s.vars, ...tight });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(59);
    expect(((await res.json()) as { title: string }).title).toBe("Too many requests for this agent");
  });

  it("limits open conversations per agent, and lets an open one continue", async () => {
    const agent = await knownAgent("conv-cap");
    const cap = { MAX_OPEN_CONVERSATIONS_PER_AGENT: "2" };
    const c1 = uid("c");
    expect((await postMessage({ agent_id: agent, conversation_id: c1, text: "a" }, API, cap)).status).toBe(202);
    expect((await postMessage({ agent_id: agent, conversation_id: uid("c"), text: "b" }, API, cap)).status).toBe(202);
    const third = await postMessage({ agent_id: agent, conversation_id: uid("c"), text: "c" }, API, cap);
    expect(third.status).toBe(429);
    expect(((await third.json()) as { title: string }).title).toBe("Too many open conversations");
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await postMessage({ agent_id: agent, conversation_id: c1, text: "again" }, API, cap)).status).toBe(202);
  });

  it("frees an idle conversation's place, and a restarted limiter knows the open ones", async () => {
    const stub = env.LIMITER.get(env.LIMITER.idFromName(uid("agent:idle")));
    const req = (conversationId: string) => ({ conversationId, maxOpen: 1, idleMs: 200, perMinute: 600, burst: 10 });
    await runInDurableObject(stub, async (instance, state) => {
      const limiter = instance as unknown as LimiterDO;
      expect(await limiter.admitAgent(req("a"))).toEqual({ ok: true });
      expect(await limiter.admitAgent(req("b"))).toMatchObject({ ok: false, reason: "open_conversations" });
      const restarted = new LimiterDO(state, env);
      expect(await restarted.admitAgent(req("b"))).toMatchObject({ ok: false, reason: "open_conversations" });
      await new Promise((r) => setTimeout(r, 250));
      expect(await restarted.admitAgent(req("b"))).toEqual({ ok: true });
      expect(state.storage.sql.exec("SELECT id FROM open_conversation").toArray()).toEqual([{ id: "b" }]);
    });
  });

  it("counts every rejection by route, status and title, readable by admins only", async () => {
    const before = await rejections();
    await postMessage({ agent_id: "pi-1", text: "x" }, { authorization: "Bearer wrong" });
    await postMessage({ agent_id: await knownAgent("a"), text: "x".repeat(11) }, API, { MAX_TEXT_CHARS: "10" });
    const after = await rejections();
    expect(after["POST /v1/messages 401 Unauthorized"]).toBe((before["POST /v1/messages 401 Unauthorized"] ?? 0) + 1);
    expect(after["POST /v1/messages 413 Text too long"]).toBe((before["POST /v1/messages 413 Text too long"] ?? 0) + 1);
    expect((await call("/v1/limits", { headers: API })).status).toBe(403);
  });
});
