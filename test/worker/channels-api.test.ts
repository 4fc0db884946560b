/**
 * The channels' routes through the real worker and its objects: a webhook verified the platform's
 * way and deduplicated by the platform's event id, and the admin API for grants and pairing codes.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ChatPlatform } from "../../durable-objects/channels/platform.js";
import { PLATFORMS } from "../../durable-objects/channels/platforms/index.js";
import { ADMIN, API, call } from "./support/front-door.js";
import { jsonPost } from "./support/keys.js";

const SECRET = "worker-test-webhook-secret";
const TELEGRAM = {
  TELEGRAM_BOT_TOKEN: "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11",
  TELEGRAM_WEBHOOK_SECRET: SECRET,
  TELEGRAM_API_BASE_URL: "http://127.0.0.1:9",
};
let updateId = 900_000 + Math.floor(Math.random() * 50_000);

const webhook = (body: unknown, secret: string | null = SECRET, vars: Record<string, string> = TELEGRAM) =>
  call(
    "/v1/channels/telegram",
    {
      method: "POST",
      headers: { "content-type": "application/json", ...(secret ? { "x-telegram-bot-api-secret-token": secret } : {}) },
      body: typeof body === "string" ? body : JSON.stringify(body),
    },
    vars,
  );

const update = () => ({
  update_id: ++updateId,
  message: {
    message_id: 1,
    from: { id: 42, first_name: "Test" },
    chat: { id: 42, type: "private" },
    date: 1441645532,
    text: "hello",
  },
});

describe("channel webhooks", () => {
  it("answer 404 for a platform that does not exist or is not configured", async () => {
    expect((await webhook(update(), SECRET, {})).status).toBe(404);
    const res = await call("/v1/channels/icq", { method: "POST", body: "{}" });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
  });

  it("refuse a missing or wrong secret token (401) and a body that is not an update (400)", async () => {
    expect((await webhook(update(), null)).status).toBe(401);
    expect((await webhook(update(), "another-secret")).status).toBe(401);
    expect((await webhook("{nope")).status).toBe(400);
    expect((await webhook({ update_id: "x" })).status).toBe(400);
  });

  it("take an update once: the platform's retry of it is answered and not handed on again", async () => {
    const u = update();
    const first = await webhook(u);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ ok: true, taken: 1, repeated: 0 });
    const again = await webhook(u);
    expect(await again.json()).toEqual({ ok: true, taken: 0, repeated: 1 });
  });

  it("answer 200 with nothing taken for updates edgeloop does not act on", async () => {
    const res = await webhook({ update_id: ++updateId, edited_message: { message_id: 1 } });
    expect(await res.json()).toEqual({ ok: true, taken: 0, repeated: 0 });
  });
});

describe("channels admin API", () => {
  it("is for the admin only", async () => {
    expect((await call("/v1/channels")).status).toBe(401);
    expect((await call("/v1/channels", { headers: API })).status).toBe(403);
    const res = await call("/v1/channels", { headers: ADMIN }, TELEGRAM);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { platforms: { platform: string; configured: boolean }[] };
    expect(body.platforms.find((p) => p.platform === "telegram")).toMatchObject({ configured: true });
  });

  it("stores a grant for a user or a group chat, refuses one reaching nothing or an unknown pool, and removes it", async () => {
    const subject = `chat:-100${updateId}`;
    const none = await call("/v1/channels/grants", jsonPost({ platform: "telegram", subject }, ADMIN));
    expect(none.status).toBe(400);
    const pool = await call("/v1/channels/grants", jsonPost({ platform: "telegram", subject, pools: ["nope"] }, ADMIN));
    expect(pool.status).toBe(400);
    const badSubject = await call(
      "/v1/channels/grants",
      jsonPost({ platform: "telegram", subject: "someone", agents: ["pi-1"] }, ADMIN),
    );
    expect(badSubject.status).toBe(400);
    const made = await call(
      "/v1/channels/grants",
      jsonPost({ platform: "telegram", subject, agents: ["pi-1"], target: "pi-1" }, ADMIN),
    );
    expect(made.status).toBe(201);
    expect(await made.json()).toMatchObject({
      platform: "telegram",
      subject,
      agents: ["pi-1"],
      target: "pi-1",
      scopes: ["messages", "conversations:read", "conversations:write"],
    });
    const path = `/v1/channels/grants/telegram/${encodeURIComponent(subject)}`;
    expect((await call(path, { method: "DELETE", headers: ADMIN })).status).toBe(200);
    expect((await call(path, { method: "DELETE", headers: ADMIN })).status).toBe(404);
  });

  it("answers 404 for a pairing code nobody was given, and for registering a platform not configured", async () => {
    const approve = await call("/v1/channels/pairings/ABCD-EFGH/approve", jsonPost({ agents: ["pi-1"] }, ADMIN));
    expect(approve.status).toBe(404);
    const register = await call("/v1/channels/telegram/register", jsonPost({ url: "https://x.example/hook" }, ADMIN));
    expect(register.status).toBe(404);
    // It names the settings, and where they go.
    expect(((await register.json()) as { detail: string }).detail).toContain("set its TELEGRAM_* settings");
  });
});

describe("a platform's immediate answer", () => {
  it("goes back as plain text when it is a string (a verify handshake), as JSON otherwise", async () => {
    const handshake: ChatPlatform<{ token: string }> = {
      name: "whatsapp",
      title: "WhatsApp",
      limits: { maxMessageLength: 4096, minEditIntervalMs: 0, canEdit: false, photoMaxBytes: 1 },
      settingsSchema: z.object({}),
      settings: () => ({ ok: true, value: { token: "t" } }),
      registration: () => "",
      async inbound(request) {
        const url = new URL(request.url);
        const body = request.method === "GET" ? (url.searchParams.get("hub.challenge") ?? "") : { challenge: "json" };
        return { ok: true, events: [], immediate: { status: 200, body } };
      },
      client: () => {
        throw new Error("not used");
      },
    };
    const before = PLATFORMS.whatsapp;
    PLATFORMS.whatsapp = handshake as never;
    try {
      const get = await call("/v1/channels/whatsapp?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=t");
      expect(get.status).toBe(200);
      expect(get.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(await get.text()).toBe("1158201444");
      const post = await call("/v1/channels/whatsapp", { method: "POST", body: "{}" });
      expect(await post.json()).toEqual({ challenge: "json" });
    } finally {
      PLATFORMS.whatsapp = before;
    }
  });
});
