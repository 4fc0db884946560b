import type { ApiKeyView } from "@edgeloop/protocol/api-keys";
import { describe, expect, it } from "vitest";
import { KEY_TRUST_MS, VerifiedKeys } from "../../../durable-objects/api-keys/verified-keys.js";

const key = (key_id: string): ApiKeyView => ({
  key_id,
  name: key_id,
  agents: ["pi-1"],
  pools: [],
  scopes: ["messages"] as ApiKeyView["scopes"],
  created_at: 0,
  last_used_at: null,
  revoked_at: null,
});

/** The keys' object, as the isolate sees it: which hashes are valid now, and how often it was asked. */
function keysObject(valid: Map<string, ApiKeyView>) {
  const asked: string[] = [];
  const ask = async (hash: string) => {
    asked.push(hash);
    return valid.get(hash) ?? null;
  };
  return { asked, ask };
}

describe("an isolate's cache of verified keys", () => {
  it("asks the keys' object once per trust period, not once per request", async () => {
    const cache = new VerifiedKeys();
    const obj = keysObject(new Map([["h1", key("key_a")]]));
    let now = 1_000;
    for (let i = 0; i < 5; i++) expect(await cache.verify("h1", obj.ask, () => now)).toMatchObject({ key_id: "key_a" });
    expect(obj.asked).toEqual(["h1"]);
    now += KEY_TRUST_MS;
    await cache.verify("h1", obj.ask, () => now);
    expect(obj.asked).toEqual(["h1", "h1"]);
  });

  it("refuses a key revoked elsewhere once the trust period is over: the documented bound", async () => {
    const valid = new Map([["h1", key("key_a")]]);
    const cache = new VerifiedKeys();
    const obj = keysObject(valid);
    let now = 0;
    await cache.verify("h1", obj.ask, () => now);
    valid.delete("h1"); // revoked through another isolate
    now = KEY_TRUST_MS - 1;
    expect(await cache.verify("h1", obj.ask, () => now)).not.toBeNull();
    now = KEY_TRUST_MS;
    expect(await cache.verify("h1", obj.ask, () => now)).toBeNull();
  });

  it("refuses a key revoked through this isolate at once, even if a check was in flight", async () => {
    const valid = new Map([
      ["h1", key("key_a")],
      ["h2", key("key_b")],
    ]);
    const cache = new VerifiedKeys();
    await cache.verify("h1", keysObject(valid).ask);
    await cache.verify("h2", keysObject(valid).ask);
    valid.delete("h1");
    cache.forget("key_a");
    expect(await cache.verify("h1", keysObject(valid).ask)).toBeNull();
    const other = keysObject(valid);
    expect(await cache.verify("h2", other.ask)).toMatchObject({ key_id: "key_b" });
    expect(other.asked).toEqual([]);

    // A check that began before the revocation answered "valid": it is returned, never kept.
    valid.set("h3", key("key_c"));
    let release: () => void = () => {};
    const slow = async (hash: string) => {
      await new Promise<void>((r) => {
        release = r;
      });
      return valid.get(hash) ?? null;
    };
    const inFlight = cache.verify("h3", slow);
    cache.forget("key_c");
    valid.delete("h3");
    release();
    await inFlight;
    expect(await cache.verify("h3", keysObject(valid).ask)).toBeNull();
  });

  it("keeps no answer for an unknown token, so a new key works at once", async () => {
    const valid = new Map<string, ApiKeyView>();
    const cache = new VerifiedKeys();
    expect(await cache.verify("h9", keysObject(valid).ask)).toBeNull();
    valid.set("h9", key("key_new"));
    expect(await cache.verify("h9", keysObject(valid).ask)).toMatchObject({ key_id: "key_new" });
  });
});
