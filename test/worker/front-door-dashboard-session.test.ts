// POST /v1/messages from the dashboard: its session cookie stands for the admin token, with the
// same CSRF rule as every other cookie-authenticated write, and never helps a webhook or a bearer.

import { env } from "cloudflare:test";
import { signHmacWebhook } from "@edgeloop/protocol/webhook-signatures";
import { describe, expect, it } from "vitest";
import { conversationFor } from "../../durable-objects/addresses.js";
import { SESSION_COOKIE, SESSION_TTL_MS, signSession } from "../../worker/middleware/dashboard-session.js";
import { call, knownAgent, postMessage, uid } from "./support/front-door.js";

const cookie = async (expiresAt = Date.now() + SESSION_TTL_MS - 1000) =>
  `${SESSION_COOKIE}=${await signSession(env.ADMIN_TOKEN!, expiresAt)}`;
const CSRF = { "x-edgeloop-csrf": "1" };
const detail = async (res: Response) => ((await res.json()) as { detail: string }).detail;
const started = async (conversationId: string) =>
  (await conversationFor(env, conversationId).getConversation()) !== null;

describe("POST /v1/messages with the dashboard session", () => {
  it("accepts the session cookie with X-Edgeloop-CSRF, as the admin sender, and continues a conversation", async () => {
    const conversation_id = uid("conv");
    const agent_id = await knownAgent("a");
    const first = await postMessage(
      { agent_id, conversation_id, text: "from the dashboard" },
      { cookie: await cookie(), ...CSRF },
    );
    expect(first.status).toBe(202);
    expect(await first.json()).toMatchObject({ conversation_id, agent_id });
    const second = await postMessage(
      { agent_id, conversation_id, text: "and again" },
      { cookie: await cookie(), ...CSRF },
    );
    expect(second.status).toBe(202);
    const view = await conversationFor(env, conversation_id).getConversation();
    expect(view?.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
      "from the dashboard",
      "and again",
    ]);
  });

  it("refuses it without the CSRF header (403), and starts nothing", async () => {
    const conversation_id = uid("conv");
    const res = await postMessage(
      { agent_id: await knownAgent("a"), conversation_id, text: "hi" },
      { cookie: await cookie() },
    );
    expect(res.status).toBe(403);
    expect(await detail(res)).toContain("X-Edgeloop-CSRF");
    expect(await started(conversation_id)).toBe(false);
  });

  it("refuses an expired or forged session (401)", async () => {
    const conversation_id = uid("conv");
    const body = { agent_id: await knownAgent("a"), conversation_id, text: "hi" };
    const expired = await postMessage(body, { cookie: await cookie(Date.now() - 1000), ...CSRF });
    expect(expired.status).toBe(401);
    expect(await detail(expired)).toContain("expired");
    const forged = await postMessage(body, {
      cookie: `${SESSION_COOKIE}=${Date.now() + 60_000}.${"A".repeat(43)}`,
      ...CSRF,
    });
    expect(forged.status).toBe(401);
    expect(await started(conversation_id)).toBe(false);
  });

  it("never lends a valid session to a request with a bearer token or a webhook signature", async () => {
    const body = JSON.stringify({ agent_id: await knownAgent("a"), text: "hi" });
    const session = { cookie: await cookie(), ...CSRF };
    const bearer = await postMessage(body, { ...session, authorization: "Bearer not-a-token" });
    expect(bearer.status).toBe(401);
    expect(await detail(bearer)).toBe("invalid token");
    const ts = String(Math.floor(Date.now() / 1000));
    const signed = await postMessage(
      body,
      { ...session, "x-webhook-signature": await signHmacWebhook("wrong-secret", ts, body), "x-webhook-timestamp": ts },
      { WEBHOOK_SECRETS: "s:right-secret" },
    );
    expect(signed.status).toBe(401);
    expect(await detail(signed)).toContain("X-Webhook-Signature");
  });

  it("follows MESSAGE_AUTH: without bearer there, the session (the admin token's stand-in) is refused too", async () => {
    const res = await postMessage(
      { agent_id: await knownAgent("a"), text: "hi" },
      { cookie: await cookie(), ...CSRF },
      { MESSAGE_AUTH: "hmac", WEBHOOK_SECRETS: "s:secret" },
    );
    expect(res.status).toBe(401);
    expect(await detail(res)).toContain("MESSAGE_AUTH");
  });
});

describe("GET /v1/devices", () => {
  it("lists the configured pools beside the devices, for the dashboard's message form", async () => {
    const res = await call(
      "/v1/devices",
      { headers: { cookie: await cookie() } },
      { POOLS: "kitchen:pi-1|pi-2,lab:pi-3" },
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { pools: unknown }).pools).toEqual([
      { pool: "kitchen", members: ["pi-1", "pi-2"] },
      { pool: "lab", members: ["pi-3"] },
    ]);
  });
});
