import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { NodeCredentials } from "../../../durable-objects/device-hub/wires/openclaw/node-credentials.js";
import { nodeSqlStorage } from "../../helpers/node-sql-storage.js";

/**
 * What an OpenClaw node's admission reads (durable-objects/device-hub/wires/openclaw/node-credentials.ts), over
 * SQLite as the hub keeps it (workerd and end to end: test/worker/openclaw-node*.test.ts): setup secrets are used
 * once and expire, one key is pinned, a revoked key stays refused until an admin clears it.
 */
const fresh = () => new NodeCredentials(nodeSqlStorage());

describe("setup secrets", () => {
  it("are 22 base64url characters, kept only as a hash, and used once before they expire", async () => {
    const creds = fresh();
    const { secret, expires_at } = await creds.mintSetup(1_000, 600_000);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(expires_at).toBe(601_000);
    expect(await creds.setupExpiry(secret, 2_000)).toBe(601_000);
    expect(await creds.setupExpiry(createHash("sha256").update(secret).digest("hex"), 2_000)).toBeNull();
    expect(await creds.consumeSetup(secret, 2_000)).toBe(true);
    expect(await creds.consumeSetup(secret, 2_001)).toBe(false);
    expect(await creds.setupExpiry(secret, 2_001)).toBeNull();
  });

  it("are refused from their expiry on", async () => {
    const creds = fresh();
    const { secret } = await creds.mintSetup(0, 1_000);
    expect(await creds.setupExpiry(secret, 999)).toBe(1_000);
    expect(await creds.setupExpiry(secret, 1_000)).toBeNull();
    expect(await creds.consumeSetup(secret, 1_000)).toBe(false);
    expect(await creds.consumeSetup("unknown", 0)).toBe(false);
  });

  it("that expired are dropped when the next is minted; live ones stay", async () => {
    const creds = fresh();
    const old = await creds.mintSetup(0, 1_000);
    const live = await creds.mintSetup(0, 5_000);
    await creds.mintSetup(1_001, 1_000);
    expect(await creds.consumeSetup(live.secret, 1_001)).toBe(true);
    expect(await creds.setupExpiry(old.secret, 0)).toBeNull();
  });
});

describe("the pinned key", () => {
  it("is one per hub: pinning again replaces it, and drops that key's waiting claim", () => {
    const creds = fresh();
    expect(creds.pinned()).toBeNull();
    creds.saveClaim({ device_id: "k2", code: "ABCD-2345", claim_secret: "s", expires_at: 10_000 });
    creds.pin("k1", "pk1", 100, "setup_code");
    creds.pin("k2", "pk2", 200, "pairing");
    expect(creds.pinned()).toEqual({ device_id: "k2", public_key: "pk2", paired_at: 200, paired_by: "pairing" });
    expect(creds.claimFor("k2", 300)).toBeNull();
  });
});

describe("pairing claims", () => {
  it("are found while live, counted, and dropped at their expiry", () => {
    const creds = fresh();
    const claim = { device_id: "k1", code: "ABCD-2345", claim_secret: "s1", expires_at: 1_000 };
    creds.saveClaim(claim);
    creds.saveClaim({ device_id: "k2", code: "EFGH-6789", claim_secret: "s2", expires_at: 5_000 });
    expect(creds.claimCount()).toBe(2);
    expect(creds.claimFor("k1", 999)).toEqual(claim);
    expect(creds.claimFor("k1", 1_000)).toBeNull();
    expect(creds.claimCount()).toBe(1);
    creds.dropClaim("k2");
    expect(creds.claimCount()).toBe(0);
  });
});

describe("revoked keys", () => {
  it("stay refused, unpinned and without a claim, until an admin clears them", () => {
    const creds = fresh();
    creds.pin("k1", "pk1", 100, "setup_code");
    creds.saveClaim({ device_id: "k1", code: "ABCD-2345", claim_secret: "s", expires_at: 10_000 });
    creds.revoke("k1", 500, "denied");
    creds.revoke("k1", 600, "again");
    expect(creds.revoked("k1")).toEqual({ device_id: "k1", revoked_at: 500, why: "denied" });
    expect(creds.pinned()).toBeNull();
    expect(creds.claimFor("k1", 501)).toBeNull();
    expect(creds.revoked("k2")).toBeNull();
    expect(creds.clearRevoked()).toEqual([{ device_id: "k1", revoked_at: 500, why: "denied" }]);
    expect(creds.revoked("k1")).toBeNull();
    expect(creds.revokedKeys()).toEqual([]);
  });

  it("include every key that signed in with a revoked token, and only those", () => {
    const creds = fresh();
    creds.noteTokenUse("tok_a", "k1");
    creds.noteTokenUse("tok_a", "k1");
    creds.noteTokenUse("tok_a", "k2");
    creds.noteTokenUse("tok_b", "k3");
    expect(creds.revokeKeysOf("tok_a", 700).sort()).toEqual(["k1", "k2"]);
    expect(creds.revokedKeys().map((k) => [k.device_id, k.why])).toEqual([
      ["k1", "its token tok_a was revoked"],
      ["k2", "its token tok_a was revoked"],
    ]);
    expect(creds.revoked("k3")).toBeNull();
    // Cleared keys forget their tokens: revoking tok_a again revokes nobody.
    creds.clearRevoked();
    expect(creds.revokeKeysOf("tok_a", 800)).toEqual([]);
    expect(creds.revokeKeysOf("tok_b", 800)).toEqual(["k3"]);
  });

  it("are listed oldest first", () => {
    const creds = fresh();
    creds.revoke("late", 900, "x");
    creds.revoke("early", 100, "y");
    expect(creds.revokedKeys().map((k) => k.device_id)).toEqual(["early", "late"]);
  });
});

describe("what the node advertised", () => {
  it("is its commands from its last sign-in, and what it published since, each replaced whole", () => {
    const creds = fresh();
    expect(creds.commands()).toEqual([]);
    expect(creds.published()).toEqual({ tools: [], skills: [] });
    creds.saveCommands(["system.run", "canvas.snapshot"]);
    const tool = { pluginId: "mcp", name: "read_doc" };
    creds.savePublished({ tools: [tool] as never });
    expect(creds.published()).toEqual({ tools: [tool], skills: [] });
    creds.savePublished({ skills: [{ name: "s" }] as never });
    expect(creds.published()).toEqual({ tools: [tool], skills: [{ name: "s" }] });
    creds.savePublished({ tools: [] });
    expect(creds.published()).toEqual({ tools: [], skills: [{ name: "s" }] });
    creds.saveCommands(["system.run"]);
    expect(creds.commands()).toEqual(["system.run"]);
    expect(creds.published()).toEqual({ tools: [], skills: [] });
  });
});
