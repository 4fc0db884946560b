import type { ApiKeyView } from "@edgeloop/protocol/api-keys";
import { describe, expect, it } from "vitest";
import { stillTrusted, TRUST_MS, TrustedCopy } from "../../../durable-objects/deployment/trusted-copy.js";

/**
 * The one helper behind an isolate's copies of keys, approval rules and chat grants
 * (docs/architecture.md#trusted-copies): what it promises is the bound.
 */

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

/** The deployment object as the isolate sees it: what it holds now, and how often it was read. */
function source<V>(initial: Map<string, V>) {
  const src = {
    held: initial,
    reads: [] as string[],
    read: (name: string) => async () => {
      src.reads.push(name);
      return src.held.get(name) ?? null;
    },
  };
  return src;
}

/** A read that waits until `release` is called, to land changes while it is in flight. */
function slowRead<V>(answer: () => V) {
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const read = async () => {
    await gate;
    return answer();
  };
  return { read, release: () => release() };
}

describe("stillTrusted", () => {
  it("trusts a copy younger than the bound and never one as old as it", () => {
    expect(stillTrusted(1_000, 1_000)).toBe(true);
    expect(stillTrusted(1_000, 1_000 + TRUST_MS - 1)).toBe(true);
    expect(stillTrusted(1_000, 1_000 + TRUST_MS)).toBe(false);
    expect(stillTrusted(0, 99, 100)).toBe(true);
    expect(stillTrusted(0, 100, 100)).toBe(false);
  });
});

describe("TrustedCopy", () => {
  it("reads once per bound however many lookups, and again once the copy is as old as the bound", async () => {
    const copy = new TrustedCopy<string | null>();
    const src = source(new Map([["all", "v1"]]));
    let now = 5_000;
    for (let i = 0; i < 20; i++) expect(await copy.get("all", src.read("all"), () => now)).toBe("v1");
    expect(src.reads).toHaveLength(1);
    now += TRUST_MS - 1;
    await copy.get("all", src.read("all"), () => now);
    expect(src.reads).toHaveLength(1);
    now += 1;
    await copy.get("all", src.read("all"), () => now);
    expect(src.reads).toHaveLength(2);
  });

  it("stops a key revoked through another isolate within the bound, and not later", async () => {
    const copy = new TrustedCopy<ApiKeyView | null>({ keep: (k) => k !== null });
    const src = source(new Map([["h1", key("key_a")]]));
    let now = 0;
    expect(await copy.get("h1", src.read("h1"), () => now)).not.toBeNull();
    src.held.delete("h1"); // revoked straight at the object, as another isolate's route would
    now = TRUST_MS - 1;
    expect(await copy.get("h1", src.read("h1"), () => now)).not.toBeNull();
    now = TRUST_MS;
    expect(await copy.get("h1", src.read("h1"), () => now)).toBeNull();
  });

  it("counts a copy's age from before its read began, so a change landing mid-read is still bounded", async () => {
    const copy = new TrustedCopy<string>({ boundMs: 100 });
    let now = 0;
    let value = "old";
    const slow = slowRead(() => value);
    const first = copy.get("all", slow.read, () => now);
    now = 60; // the read takes 60 ms; a revoke lands just before it answers
    slow.release();
    expect(await first).toBe("old");
    value = "new";
    now = 99;
    expect(
      await copy.get(
        "all",
        async () => value,
        () => now,
      ),
    ).toBe("old");
    now = 100; // 100 ms after the read began, not after it ended
    expect(
      await copy.get(
        "all",
        async () => value,
        () => now,
      ),
    ).toBe("new");
  });

  it("keeps only what `keep` allows: an unknown key is asked again, so a new key works at once", async () => {
    const copy = new TrustedCopy<ApiKeyView | null>({ keep: (k) => k !== null });
    const src = source(new Map<string, ApiKeyView>());
    expect(await copy.get("h9", src.read("h9"), () => 0)).toBeNull();
    src.held.set("h9", key("key_new"));
    expect(await copy.get("h9", src.read("h9"), () => 1)).toMatchObject({ key_id: "key_new" });
    expect(src.reads).toEqual(["h9", "h9"]);
  });

  it("forgets at once what this isolate changed: all of it, or only the copies picked", async () => {
    const copy = new TrustedCopy<ApiKeyView | null>();
    const src = source(
      new Map([
        ["h1", key("key_a")],
        ["h2", key("key_b")],
      ]),
    );
    await copy.get("h1", src.read("h1"), () => 0);
    await copy.get("h2", src.read("h2"), () => 0);
    src.held.delete("h1");
    copy.forget((k) => k?.key_id === "key_a");
    expect(await copy.get("h1", src.read("h1"), () => 1)).toBeNull();
    expect(await copy.get("h2", src.read("h2"), () => 1)).toMatchObject({ key_id: "key_b" });
    expect(src.reads).toEqual(["h1", "h2", "h1"]);
    copy.forget();
    await copy.get("h2", src.read("h2"), () => 2);
    expect(src.reads).toEqual(["h1", "h2", "h1", "h2"]);
  });

  it("answers a read that was in flight across a forget, but does not keep it", async () => {
    const copy = new TrustedCopy<string>();
    let value = "before the grant";
    const slow = slowRead(() => value);
    const pending = copy.get("all", slow.read, () => 0);
    copy.forget();
    slow.release();
    expect(await pending).toBe("before the grant");
    value = "after the grant";
    let reads = 0;
    const read = async () => {
      reads++;
      return value;
    };
    expect(await copy.get("all", read, () => 1)).toBe("after the grant");
    expect(reads).toBe(1);
  });

  it("shares one read among concurrent lookups of a stale copy", async () => {
    const copy = new TrustedCopy<string>();
    let reads = 0;
    const slow = slowRead(() => "v");
    const counted = () => {
      reads++;
      return slow.read();
    };
    const lookups = [1, 2, 3].map(() => copy.get("all", counted, () => 0));
    slow.release();
    expect(await Promise.all(lookups)).toEqual(["v", "v", "v"]);
    expect(reads).toBe(1);
  });

  it("keeps nothing from a failed read: the next lookup reads again", async () => {
    const copy = new TrustedCopy<string>();
    await expect(
      copy.get(
        "all",
        () => Promise.reject(new Error("down")),
        () => 0,
      ),
    ).rejects.toThrow("down");
    expect(
      await copy.get(
        "all",
        async () => "up",
        () => 0,
      ),
    ).toBe("up");
  });

  it("holds at most `maxEntries` copies, dropping the oldest", async () => {
    const copy = new TrustedCopy<string>({ maxEntries: 2 });
    let reads = 0;
    const read = (v: string) => async () => {
      reads++;
      return v;
    };
    for (const k of ["a", "b", "c"]) await copy.get(k, read(k), () => 0);
    expect(reads).toBe(3);
    await copy.get("c", read("c"), () => 0);
    await copy.get("b", read("b"), () => 0);
    expect(reads).toBe(3);
    await copy.get("a", read("a"), () => 0);
    expect(reads).toBe(4);
  });
});
