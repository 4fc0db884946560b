import type { ChannelGrant } from "@edgeloop/protocol/channels";
import { describe, expect, it } from "vitest";
import { GRANT_TRUST_MS, GrantsInForce, grantIn } from "../../../durable-objects/channels/directory/grants-in-force.js";
import { RESEND_CODE_MS } from "../../../durable-objects/channels/directory/pairing-code.js";
import { ToldStrangers } from "../../../durable-objects/channels/thread/told-strangers.js";

const grant = (subject: string, over: Partial<ChannelGrant> = {}): ChannelGrant => ({
  platform: "telegram",
  subject,
  name: subject,
  agents: ["pi-1"],
  pools: [],
  scopes: ["messages"],
  target: null,
  created_at: 0,
  ...over,
});

/** The channel directory as an isolate sees it: its grants now, and how often it was read. */
function directory(grants: ChannelGrant[]) {
  const dir = {
    grants,
    reads: 0,
    read: async () => {
      dir.reads++;
      return dir.grants;
    },
  };
  return dir;
}

describe("grantIn: the grant that answers for a chat user", () => {
  const all = new Map(
    [
      grant("user:7", { name: "own" }),
      grant("chat:-100", { name: "group" }),
      grant("user:8", { platform: "slack" }),
    ].map((g) => [`${g.platform}\n${g.subject}`, g]),
  );
  it("is the user's own grant before the group chat's, on the same platform only", () => {
    expect(grantIn(all, "telegram", "7", "-100")?.name).toBe("own");
    expect(grantIn(all, "telegram", "9", "-100")?.name).toBe("group");
    expect(grantIn(all, "telegram", "8", "42")).toBeNull();
    expect(grantIn(all, "slack", "8", "42")?.subject).toBe("user:8");
  });
});

describe("GrantsInForce: the isolate's copy of the chat grants", () => {
  it("reads the directory once per trust window, however many lookups, and again after it", async () => {
    const dir = directory([grant("user:7")]);
    const cache = new GrantsInForce();
    let t = 1_000;
    const now = () => t;
    for (let i = 0; i < 50; i++) expect(await cache.grantFor("telegram", "7", "1", dir.read, now)).not.toBeNull();
    // A stranger is answered from the same copy: no read for them either.
    expect(await cache.grantFor("telegram", "666", "2", dir.read, now)).toBeNull();
    expect(dir.reads).toBe(1);
    t += GRANT_TRUST_MS - 1;
    await cache.grantFor("telegram", "7", "1", dir.read, now);
    expect(dir.reads).toBe(1);
    t += 1;
    await cache.grantFor("telegram", "7", "1", dir.read, now);
    expect(dir.reads).toBe(2);
  });

  it("keeps using a grant revoked elsewhere until the window ends, never after", async () => {
    const dir = directory([grant("user:7")]);
    const cache = new GrantsInForce();
    let t = 0;
    const now = () => t;
    await cache.grantFor("telegram", "7", "1", dir.read, now);
    dir.grants = []; // revoked through another isolate: this one is not told
    t = GRANT_TRUST_MS - 1;
    expect(await cache.grantFor("telegram", "7", "1", dir.read, now)).not.toBeNull();
    t = GRANT_TRUST_MS;
    expect(await cache.grantFor("telegram", "7", "1", dir.read, now)).toBeNull();
  });

  it("drops the copy at once in the isolate that writes a grant", async () => {
    const dir = directory([]);
    const cache = new GrantsInForce();
    const now = () => 0;
    expect(await cache.grantFor("telegram", "7", "1", dir.read, now)).toBeNull();
    dir.grants = [grant("user:7")];
    cache.forget();
    expect(await cache.grantFor("telegram", "7", "1", dir.read, now)).not.toBeNull();
    dir.grants = [];
    cache.forget();
    expect(await cache.grantFor("telegram", "7", "1", dir.read, now)).toBeNull();
    expect(dir.reads).toBe(3);
  });

  it("shares one read between concurrent lookups, and keeps no read that a forget overtook", async () => {
    let release: (gs: ChannelGrant[]) => void = () => {};
    let reads = 0;
    const slow = () => {
      reads++;
      return new Promise<ChannelGrant[]>((r) => {
        release = r;
      });
    };
    const cache = new GrantsInForce();
    const now = () => 0;
    const lookups = [1, 2, 3].map(() => cache.grantFor("telegram", "7", "1", slow, now));
    expect(reads).toBe(1);
    cache.forget(); // a revoke lands while the read is in flight
    release([grant("user:7")]);
    expect((await Promise.all(lookups)).every((g) => g !== null)).toBe(true);
    // That read answered its own lookups but is not trusted for the next one.
    const next = cache.grantFor("telegram", "7", "1", slow, now);
    expect(reads).toBe(2);
    release([]);
    expect(await next).toBeNull();
  });

  it("reads again after a failed read", async () => {
    const cache = new GrantsInForce();
    const now = () => 0;
    await expect(cache.grantFor("telegram", "7", "1", () => Promise.reject(new Error("down")), now)).rejects.toThrow(
      "down",
    );
    expect(await cache.grantFor("telegram", "7", "1", async () => [grant("user:7")], now)).not.toBeNull();
  });
});

describe("ToldStrangers: a thread's memory of the unknown users already given a code", () => {
  it("remembers a user in one thread for the directory's resend interval", () => {
    const told = new ToldStrangers();
    expect(told.recently("telegram:1", "666", 0)).toBe(false);
    told.remember("telegram:1", "666", 0);
    expect(told.recently("telegram:1", "666", RESEND_CODE_MS - 1)).toBe(true);
    expect(told.recently("telegram:2", "666", 1)).toBe(false);
    expect(told.recently("telegram:1", "667", 1)).toBe(false);
    expect(told.recently("telegram:1", "666", RESEND_CODE_MS)).toBe(false);
  });
});
