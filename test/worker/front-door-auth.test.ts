import { env } from "cloudflare:test";
import {
  signHmacWebhook,
  signStandardWebhook,
  verifyHmacWebhook,
  verifyStandardWebhook,
} from "@edgeloop/protocol/webhook-signatures";
import { describe, expect, it } from "vitest";
import { conversationFor, idempotencyFor } from "../../durable-objects/addresses.js";
import { API, call, knownAgent, postMessage, uid } from "./support/front-door.js";

const SECRET = "seed-secret";
/** The second secret is a `whsec_` one: rotation, and the Standard Webhooks secret format. */
const WHSEC = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const now = () => String(Math.floor(Date.now() / 1000));

function vars(sender: string, extra: Record<string, string> = {}) {
  return { WEBHOOK_SECRETS: `${sender}:${SECRET},${sender}:${WHSEC}`, ...extra };
}

async function userMessages(conversationId: string): Promise<number> {
  const view = await conversationFor(env, conversationId).getConversation();
  return (view?.messages ?? []).filter((m) => m.role === "user").length;
}

describe("signing (pure functions)", () => {
  it("matches the Standard Webhooks reference vector", async () => {
    const sig = await signStandardWebhook(WHSEC, "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", '{"test": 2432232314}');
    expect(sig).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("signs the hmac scheme as sha256=hex(HMAC(secret, timestamp.body)) (checked against Node's crypto)", async () => {
    const sig = await signHmacWebhook(SECRET, "1700000000", '{"agent_id":"pi-1","text":"hi"}');
    expect(sig).toBe("sha256=5aebf3db582da6a88a14e837d8c26af5982882db3d43487f12cd68d1dfb94944");
  });

  it("verifies against any of several secrets and refuses a changed body or an old timestamp", async () => {
    const ts = "1700000000";
    const sig = await signHmacWebhook("new", ts, "body");
    const opts = { nowMs: 1700000000_000, toleranceSeconds: 300 };
    expect(await verifyHmacWebhook(["old", "new"], sig, ts, "body", opts)).toEqual({ ok: true, secretIndex: 1 });
    expect((await verifyHmacWebhook(["old", "new"], sig, ts, "body!", opts)).ok).toBe(false);
    expect((await verifyHmacWebhook(["new"], sig, ts, "body", { ...opts, nowMs: 1700000301_000 })).ok).toBe(false);
    const std = await signStandardWebhook("new", "id-1", ts, "body");
    expect((await verifyStandardWebhook(["new"], "id-1", ts, `v1,AAAA ${std}`, "body", opts)).ok).toBe(true);
    expect((await verifyStandardWebhook(["new"], "id-2", ts, std, "body", opts)).ok).toBe(false);
  });
});

describe("POST /v1/messages: hmac signatures (X-Webhook-Signature)", () => {
  it("accepts a right signature, refuses a wrong one and an old timestamp", async () => {
    const sender = uid("s002");
    const body = JSON.stringify({ agent_id: await knownAgent("a"), text: "hi" });
    const ts = now();
    const ok = await postMessage(
      body,
      { "x-webhook-signature": await signHmacWebhook(SECRET, ts, body), "x-webhook-timestamp": ts },
      vars(sender),
    );
    expect(ok.status).toBe(202);

    const wrong = await postMessage(
      body,
      { "x-webhook-signature": await signHmacWebhook("not-the-secret", ts, body), "x-webhook-timestamp": ts },
      vars(sender),
    );
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("content-type")).toContain("application/problem+json");
    expect(((await wrong.json()) as { detail: string }).detail).toContain("does not match");

    const old = String(Math.floor(Date.now() / 1000) - 301);
    const stale = await postMessage(
      body,
      { "x-webhook-signature": await signHmacWebhook(SECRET, old, body), "x-webhook-timestamp": old },
      vars(sender),
    );
    expect(stale.status).toBe(401);
    expect(((await stale.json()) as { detail: string }).detail).toContain("tolerance");

    // The tolerance is configurable.
    const wide = await postMessage(
      body,
      { "x-webhook-signature": await signHmacWebhook(SECRET, old, body), "x-webhook-timestamp": old },
      vars(sender, { WEBHOOK_TOLERANCE_SECONDS: "600" }),
    );
    expect(wide.status).toBe(202);

    const unsignedTs = await postMessage(
      body,
      { "x-webhook-signature": await signHmacWebhook(SECRET, ts, body) },
      vars(sender),
    );
    expect(unsignedTs.status).toBe(401);
  });

  it("answers an exact replay with the first response and starts nothing", async () => {
    const sender = vars(uid("s002"));
    const conv = uid("conv-s002-replay");
    const body = JSON.stringify({ agent_id: await knownAgent("a"), conversation_id: conv, text: "once" });
    const ts = now();
    const headers = { "x-webhook-signature": await signHmacWebhook(WHSEC, ts, body), "x-webhook-timestamp": ts };
    const first = await postMessage(body, headers, sender);
    expect(first.status).toBe(202);
    const firstBody = await first.text();
    const replay = await postMessage(body, headers, sender);
    expect(replay.status).toBe(202);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.text()).toBe(firstBody);
    expect(await userMessages(conv)).toBe(1);
  });
});

describe("POST /v1/messages: Standard Webhooks", () => {
  it("accepts a right signature (either rotated secret), refuses a wrong one and an old timestamp", async () => {
    const sender = uid("std");
    const body = JSON.stringify({ agent_id: await knownAgent("a"), text: "hi" });
    const ts = now();
    const id1 = uid("msg");
    const ok = await postMessage(
      body,
      {
        "webhook-id": id1,
        "webhook-timestamp": ts,
        "webhook-signature": await signStandardWebhook(WHSEC, id1, ts, body),
      },
      vars(sender),
    );
    expect(ok.status).toBe(202);
    const id2 = uid("msg");
    const rotated = await postMessage(
      body,
      {
        "webhook-id": id2,
        "webhook-timestamp": ts,
        "webhook-signature": await signStandardWebhook(SECRET, id2, ts, body),
      },
      vars(sender),
    );
    expect(rotated.status).toBe(202);

    const id3 = uid("msg");
    const wrong = await postMessage(
      body,
      {
        "webhook-id": id3,
        "webhook-timestamp": ts,
        "webhook-signature": await signStandardWebhook("whsec_d3Jvbmc=", id3, ts, body),
      },
      vars(sender),
    );
    expect(wrong.status).toBe(401);

    const old = String(Math.floor(Date.now() / 1000) - 3600);
    const stale = await postMessage(
      body,
      {
        "webhook-id": id3,
        "webhook-timestamp": old,
        "webhook-signature": await signStandardWebhook(WHSEC, id3, old, body),
      },
      vars(sender),
    );
    expect(stale.status).toBe(401);
  });

  it("answers a replayed webhook-id with the first response and starts no second run", async () => {
    const sender = uid("std");
    const conv = uid("conv-std-replay");
    const body = JSON.stringify({ agent_id: await knownAgent("a"), conversation_id: conv, text: "once" });
    const ts = now();
    const id = uid("msg");
    const headers = {
      "webhook-id": id,
      "webhook-timestamp": ts,
      "webhook-signature": await signStandardWebhook(WHSEC, id, ts, body),
    };
    const first = await postMessage(body, headers, vars(sender));
    expect(first.status).toBe(202);
    const firstBody = await first.text();
    const replay = await postMessage(body, headers, vars(sender));
    expect(replay.status).toBe(202);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.text()).toBe(firstBody);
    expect(await userMessages(conv)).toBe(1);
  });

  it("refuses methods the deployment has not enabled", async () => {
    const body = JSON.stringify({ agent_id: await knownAgent("a"), text: "hi" });
    const bearer = await postMessage(body, API, { MESSAGE_AUTH: "standard", WEBHOOK_SECRETS: SECRET });
    expect(bearer.status).toBe(401);
    expect(((await bearer.json()) as { detail: string }).detail).toContain("not enabled");
    const ts = now();
    const hmac = await postMessage(
      body,
      { "x-webhook-signature": await signHmacWebhook(SECRET, ts, body), "x-webhook-timestamp": ts },
      { MESSAGE_AUTH: "bearer", WEBHOOK_SECRETS: SECRET },
    );
    expect(hmac.status).toBe(401);
  });
});

describe("POST /v1/messages: idempotency", () => {
  it("a repeated Idempotency-Key returns the first response and starts nothing; another body is refused", async () => {
    const conv = uid("conv-idem");
    const key = uid("key");
    const body = { agent_id: await knownAgent("a"), conversation_id: conv, text: "hello" };
    const first = await postMessage(body, { ...API, "idempotency-key": key });
    expect(first.status).toBe(202);
    const firstBody = (await first.json()) as { message_id: string };
    const again = await postMessage(body, { ...API, "idempotency-key": key });
    expect(again.status).toBe(202);
    expect(((await again.json()) as { message_id: string }).message_id).toBe(firstBody.message_id);
    expect(await userMessages(conv)).toBe(1);

    const other = await postMessage({ ...body, text: "something else" }, { ...API, "idempotency-key": key });
    expect(other.status).toBe(422);
    expect(await userMessages(conv)).toBe(1);
  });

  it("a repeat while the first is in flight gets 409 with Retry-After", async () => {
    const key = uid("key");
    const body = JSON.stringify({ agent_id: await knownAgent("a"), text: "hello" });
    // The key as a first request in flight leaves it: claimed, no response yet.
    const { sha256Hex } = await import("../../runtime/digest.js");
    const stub = idempotencyFor(env, "api", key);
    expect((await stub.begin(await sha256Hex(body))).state).toBe("new");
    const res = await postMessage(body, { ...API, "idempotency-key": key });
    expect(res.status).toBe(409);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await res.json()) as { title: string }).title).toBe("Request in progress");
  });

  it("concurrent repeats start exactly one run", async () => {
    const conv = uid("conv-idem-race");
    const key = uid("key");
    const body = { agent_id: await knownAgent("a"), conversation_id: conv, text: "race" };
    const results = await Promise.all(
      Array.from({ length: 6 }, () => postMessage(body, { ...API, "idempotency-key": key })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 202 || s === 409)).toBe(true);
    expect(statuses).toContain(202);
    expect(await userMessages(conv)).toBe(1);
  });

  it("a refused request does not burn its key: the retry is processed", async () => {
    const key = uid("key");
    const agent = await knownAgent("a");
    const oneOpen = { MAX_OPEN_CONVERSATIONS_PER_AGENT: "1" };
    expect((await postMessage({ agent_id: agent, text: "first" }, API, oneOpen)).status).toBe(202);
    const body = { agent_id: agent, conversation_id: uid("conv"), text: "second" };
    const refused = await postMessage(body, { ...API, "idempotency-key": key }, oneOpen);
    expect(refused.status).toBe(429);
    const retry = await postMessage(
      body,
      { ...API, "idempotency-key": key },
      { MAX_OPEN_CONVERSATIONS_PER_AGENT: "2" },
    );
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("GET /v1/conversations/:id/events", () => {
  it("needs the API token and forwards Last-Event-ID to the conversation's stream", async () => {
    const conv = uid("conv-ev");
    expect((await call(`/v1/conversations/${conv}/events`)).status).toBe(401);
    const sent = await postMessage(
      { agent_id: await knownAgent("a"), conversation_id: conv, text: "hi" },
      API,
      {},
      "?wait=20",
    );
    expect(sent.status).toBe(200);
    const res = await call(`/v1/conversations/${conv}/events`, { headers: { ...API, "last-event-id": "1" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.getReader();
    let text = "";
    const deadline = Date.now() + 5000;
    while (!text.includes("\n\n") && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    // Event 1 was skipped because of Last-Event-ID: the first event is id 2.
    const firstId = text
      .split("\n\n")
      .map((f) => f.match(/^id: (\d+)/m)?.[1])
      .find(Boolean);
    expect(firstId).toBe("2");
  });
});
