/**
 * A chat message asks no per-deployment object (docs/architecture.md#trusted-copies): the real
 * chat thread's message handler, the real deployment object and the real grant routes, with the
 * deployment object's methods counted where its RPCs land.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { chatThreadFor, deploymentOf } from "../../../durable-objects/addresses.js";
import type { InboundEvent, PlatformClient } from "../../../durable-objects/channels/platform.js";
import { PLATFORMS } from "../../../durable-objects/channels/platforms/index.js";
import { handleMessage } from "../../../durable-objects/channels/thread/handle-message.js";
import type { ChatThreadEnv } from "../../../durable-objects/channels/thread/thread-context.js";
import { ThreadStore } from "../../../durable-objects/channels/thread/thread-store.js";
import { threadIdentity } from "../../../durable-objects/channels/thread-key.js";
import { DeploymentDO } from "../../../durable-objects/deployment/deployment-do.js";
import { TRUST_MS } from "../../../durable-objects/deployment/trusted-copy.js";
import { ADMIN, call } from "../support/front-door.js";
import { jsonPost } from "../support/keys.js";

const client: PlatformClient = {
  send: async () => ({ ok: true, messageId: "1" }) as never,
  edit: async () => ({ ok: true, messageId: "1" }) as never,
  typing: async () => {},
  answerButton: async () => {},
  fetchImage: async () => ({ bytes: new Uint8Array(), mediaType: "image/png" }),
};
let eventId = 0;

/** Sends `texts` from `userId` into one Telegram chat through the thread's handler; returns the notices queued. */
async function chat(chatId: string, userId: string, texts: string[]): Promise<string[]> {
  const identity = threadIdentity("telegram", { chatId });
  return runInDurableObject(chatThreadFor(env, identity.key) as never, async (_o, state: DurableObjectState) => {
    const store = new ThreadStore(state.storage.sql);
    const platform = PLATFORMS.telegram;
    const ctx = { env: env as unknown as ChatThreadEnv, store, identity, platform, client, limits: platform.limits };
    for (const text of texts) {
      const event: InboundEvent = {
        kind: "message",
        eventId: `e${++eventId}`,
        chat: identity.chat,
        user: { id: userId, name: `user ${userId}` },
        chatType: "direct",
        text,
        images: [],
      };
      await handleMessage(ctx, event);
    }
    const sends = state.storage.sql.exec<{ op: string }>("SELECT op FROM sends ORDER BY id").toArray();
    state.storage.sql.exec("DELETE FROM sends");
    return sends.map((s) => (JSON.parse(s.op) as { text?: string }).text ?? "");
  });
}

const grantUser = (userId: string) =>
  call("/v1/channels/grants", jsonPost({ platform: "telegram", subject: `user:${userId}`, agents: ["pi-1"] }, ADMIN));

describe("chat messages and the one deployment object", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it("reads the grants at most once per trust window for many messages from a granted user", async () => {
    expect((await grantUser("7001")).status).toBe(201);
    const reads = vi.spyOn(DeploymentDO.prototype, "grants");
    const pairings = vi.spyOn(DeploymentDO.prototype, "chatPairingFor");
    const notices = await chat("7001", "7001", Array(30).fill("/help"));
    expect(notices).toHaveLength(30);
    expect(notices.every((n) => n.includes("/new"))).toBe(true);
    // One read: the grant's route dropped this isolate's copy, and 30 messages came within the window.
    expect(reads).toHaveBeenCalledTimes(1);
    expect(pairings).not.toHaveBeenCalled();
  });

  it("gives a stranger one pairing code and asks the deployment object once, however often they write", async () => {
    const pairings = vi.spyOn(DeploymentDO.prototype, "chatPairingFor");
    const notices = await chat("7002", "7002", Array(30).fill("let me in"));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/Your pairing code is [A-Z2-9]{4}-[A-Z2-9]{4}/);
    expect(pairings).toHaveBeenCalledTimes(1);
  });

  it("stops a grant revoked through this isolate at the next message", async () => {
    expect((await grantUser("7003")).status).toBe(201);
    expect(await chat("7003", "7003", ["/help"])).toEqual([expect.stringContaining("/new")]);
    const revoke = await call("/v1/channels/grants/telegram/user%3A7003", { method: "DELETE", headers: ADMIN });
    expect(revoke.status).toBe(200);
    expect(await chat("7003", "7003", ["/help"])).toEqual([expect.stringContaining("pairing code")]);
  });

  it("stops a grant revoked through another isolate within the trust window", async () => {
    expect((await grantUser("7004")).status).toBe(201);
    expect(await chat("7004", "7004", ["/help"])).toEqual([expect.stringContaining("/new")]);
    // Straight at the deployment object, as another isolate's route would: this isolate's copy is not told.
    expect(await deploymentOf(env).deleteGrant("telegram", "user:7004")).toBe(true);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + TRUST_MS - 1_000);
    expect(await chat("7004", "7004", ["/help"])).toEqual([expect.stringContaining("/new")]);
    vi.setSystemTime(Date.now() + 1_000);
    expect(await chat("7004", "7004", ["/help"])).toEqual([expect.stringContaining("pairing code")]);
  });
});
