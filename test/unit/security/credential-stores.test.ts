import { createHash } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { ApiKeyStore } from "../../../durable-objects/deployment/api-keys.js";
import { DeviceTokens } from "../../../durable-objects/device-hub/storage/device-tokens.js";
import { nodeSqlStorage } from "../../helpers/node-sql-storage.js";

/**
 * The two credential stores, over SQLite as the Durable Objects keep them (workerd: test/worker/scoped-keys*.test.ts,
 * device-hub.test.ts): only a credential's hash is stored, it is shown once, and revoking it refuses it at once.
 */
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("device tokens", () => {
  it("are issued once as edl_ plus 32 random bytes, known later only by their hash", async () => {
    const tokens = new DeviceTokens(nodeSqlStorage());
    const a = await tokens.issue(100);
    const b = await tokens.issue(200);
    expect(a.token).toMatch(/^edl_[A-Za-z0-9_-]{43}$/);
    expect(a.token_id).toMatch(/^tok_[0-9a-f]{16}$/);
    expect(a.created_at).toBe(100);
    expect(a.token).not.toBe(b.token);
    expect(tokens.match(sha256(a.token), 300)).toBe(a.token_id);
    expect(tokens.match(sha256(b.token), 300)).toBe(b.token_id);
    expect(tokens.match(a.token, 300)).toBeNull();
    expect(tokens.match(sha256(`${a.token}x`), 300)).toBeNull();
  });

  it("list without the token, oldest first, with when each was last used", async () => {
    const tokens = new DeviceTokens(nodeSqlStorage());
    const b = await tokens.issue(200);
    const a = await tokens.issue(100);
    tokens.match(sha256(b.token), 500);
    expect(tokens.list()).toEqual([
      { token_id: a.token_id, created_at: 100, last_used_at: null },
      { token_id: b.token_id, created_at: 200, last_used_at: 500 },
    ]);
  });

  it("once revoked, are refused; revoking twice or an unknown id says so", async () => {
    const tokens = new DeviceTokens(nodeSqlStorage());
    const a = await tokens.issue(100);
    const b = await tokens.issue(100);
    expect(tokens.revoke(a.token_id)).toBe(true);
    expect(tokens.match(sha256(a.token), 200)).toBeNull();
    expect(tokens.match(sha256(b.token), 200)).toBe(b.token_id);
    expect(tokens.revoke(a.token_id)).toBe(false);
    expect(tokens.revoke("tok_unknown")).toBe(false);
  });
});

describe("scoped API keys", () => {
  const input = { name: "ci", agents: ["pi-1"], pools: ["lab"], scopes: ["messages"] as never[] };

  it("are issued once as edk_ plus 32 random bytes; verify finds the key by its hash", async () => {
    const keys = new ApiKeyStore(nodeSqlStorage());
    const issued = await keys.create(input, 1_000);
    expect(issued.key).toMatch(/^edk_[A-Za-z0-9_-]{43}$/);
    expect(issued.key_id).toMatch(/^key_[0-9a-f]{16}$/);
    const view = { key_id: issued.key_id, ...input, created_at: 1_000, last_used_at: null, revoked_at: null };
    expect(keys.get(issued.key_id)).toEqual(view);
    expect(keys.verify(sha256(issued.key), 2_000)).toEqual({ ...view, last_used_at: 2_000 });
    expect(keys.verify(issued.key, 2_000)).toBeNull();
    expect(keys.get("key_0000000000000000")).toBeNull();
  });

  it("are checked from memory after a restart, as the object reloads them", async () => {
    const sql = nodeSqlStorage();
    const issued = await new ApiKeyStore(sql).create(input, 1_000);
    const revoked = await new ApiKeyStore(sql).create({ ...input, name: "old" }, 1_000);
    new ApiKeyStore(sql).revoke(revoked.key_id, 1_500);
    const reloaded = new ApiKeyStore(sql);
    expect(reloaded.verify(sha256(issued.key), 2_000)).toMatchObject({ key_id: issued.key_id, name: "ci" });
    expect(reloaded.verify(sha256(revoked.key), 2_000)).toBeNull();
  });

  it("write when a key was last used at most once a minute", async () => {
    const keys = new ApiKeyStore(nodeSqlStorage());
    const issued = await keys.create(input, 0);
    const hash = sha256(issued.key);
    keys.verify(hash, 10_000);
    keys.verify(hash, 69_999);
    expect(keys.get(issued.key_id)?.last_used_at).toBe(10_000);
    keys.verify(hash, 70_000);
    expect(keys.get(issued.key_id)?.last_used_at).toBe(70_000);
  });

  it("once revoked, are refused at once and listed as revoked; revoking again changes nothing", async () => {
    const keys = new ApiKeyStore(nodeSqlStorage());
    const a = await keys.create(input, 1_000);
    const b = await keys.create({ ...input, name: "other" }, 2_000);
    expect(keys.revoke(a.key_id, 3_000)).toEqual({ found: true, revoked: true });
    expect(keys.verify(sha256(a.key), 3_001)).toBeNull();
    expect(keys.verify(sha256(b.key), 3_001)).not.toBeNull();
    expect(keys.revoke(a.key_id, 4_000)).toEqual({ found: true, revoked: false });
    expect(keys.revoke("key_0000000000000000", 4_000)).toEqual({ found: false, revoked: false });
    expect(keys.list().map((k) => [k.name, k.revoked_at])).toEqual([
      ["other", null],
      ["ci", 3_000],
    ]);
  });

  it("are logged when issued and revoked by id and name, never by the key itself", async () => {
    // A spy that lets each line through: the lines are the operator's record of who holds which key.
    const info = vi.spyOn(console, "info");
    try {
      const keys = new ApiKeyStore(nodeSqlStorage());
      const issued = await keys.create(input, 1_000);
      keys.revoke(issued.key_id, 2_000);
      const lines = info.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
      expect(lines.map(({ ts: _, ...rest }) => rest)).toEqual([
        { level: "info", msg: "api key issued", key_id: issued.key_id, name: "ci", agents: ["pi-1"], pools: ["lab"] },
        { level: "info", msg: "api key revoked", key_id: issued.key_id, name: "ci" },
      ]);
      expect(JSON.stringify(lines)).not.toContain(issued.key);
    } finally {
      info.mockRestore();
    }
  });

  it("forget a revoked key after 90 days, when the next key is made", async () => {
    const keys = new ApiKeyStore(nodeSqlStorage());
    const a = await keys.create(input, 0);
    keys.revoke(a.key_id, 1_000);
    await keys.create(input, 1_000 + 90 * 86_400_000);
    expect(keys.get(a.key_id)).not.toBeNull();
    await keys.create(input, 1_001 + 90 * 86_400_000);
    expect(keys.get(a.key_id)).toBeNull();
  });
});
