/** The access rules of runtime/access.ts and the key request's schema, as pure functions. */

import { CreateKeyRequest, KEY_SCOPES } from "@edgeloop/protocol/api-keys";
import { describe, expect, it } from "vitest";
import { canSee, hasScope, mayReach, scopedPrincipal, targetRefusal, unscoped } from "../../../runtime/access.js";

const POOLS = new Map([
  ["kitchen", ["pi-1", "pi-2"]],
  ["lab", ["pi-3"]],
]);

describe("principals", () => {
  it("a key reaches its agents and its pools' members, nothing else", () => {
    const p = scopedPrincipal("key:key_1", { agents: ["pi-9"], pools: ["kitchen"], scopes: ["messages"] }, POOLS);
    expect(p.reach).toEqual(["pi-1", "pi-2", "pi-9"]);
    expect(mayReach(p.reach, "pi-2")).toBe(true);
    expect(mayReach(p.reach, "pi-3")).toBe(false);
    expect(targetRefusal(p, { agent_id: "pi-9" })).toBeNull();
    expect(targetRefusal(p, { pool: "kitchen" })).toBeNull();
    expect(targetRefusal(p, { agent_id: "pi-3" })).toMatchObject({ field: "agent_id" });
    // A pool is named only if the key has it, even when its members are within reach.
    expect(targetRefusal(p, { pool: "lab" })).toMatchObject({ field: "pool" });
    expect(hasScope(p, "messages")).toBe(true);
    expect(hasScope(p, "tools")).toBe(false);
  });

  it('"*" reaches every device; a pool that is gone from POOLS reaches nothing', () => {
    const any = scopedPrincipal("key:a", { agents: ["*"], pools: [], scopes: "all" }, POOLS);
    expect(any.reach).toBe("*");
    expect(mayReach(any.reach, "anything")).toBe(true);
    expect(any.scoped).toBe(true);
    const gone = scopedPrincipal("key:b", { agents: [], pools: ["attic"], scopes: "all" }, POOLS);
    expect(gone.reach).toEqual([]);
  });

  it("a scoped principal sees only what it made; unscoped ones see everything", () => {
    const key = scopedPrincipal("key:a", { agents: ["*"], pools: [], scopes: "all" }, POOLS);
    expect(canSee(key, "key:a")).toBe(true);
    expect(canSee(key, "key:b")).toBe(false);
    expect(canSee(key, "api")).toBe(false);
    expect(canSee(key, null)).toBe(false);
    expect(canSee(unscoped("api"), "key:a")).toBe(true);
    expect(canSee(unscoped("admin", true), null)).toBe(true);
    expect(targetRefusal(unscoped("api"), { pool: "anything" })).toBeNull();
  });
});

describe("POST /v1/keys body", () => {
  it("needs a device, takes known scopes, and names the failing field", () => {
    expect(CreateKeyRequest.parse({ name: "tenant a", agents: ["pi-1"] })).toMatchObject({ pools: [] });
    expect(CreateKeyRequest.safeParse({ name: "t" }).error?.issues[0]?.path).toEqual(["agents"]);
    expect(CreateKeyRequest.safeParse({ name: "t", agents: ["pi 1"] }).success).toBe(false);
    expect(CreateKeyRequest.safeParse({ name: "t", agents: ["*"], scopes: ["admin"] }).success).toBe(false);
    expect(CreateKeyRequest.safeParse({ name: "t", agents: ["*"], scopes: [] }).success).toBe(false);
    expect(CreateKeyRequest.safeParse({ name: "<script>", agents: ["*"] }).success).toBe(false);
    expect(CreateKeyRequest.safeParse({ name: "t", agents: ["*"], extra: 1 }).success).toBe(false);
    expect(CreateKeyRequest.parse({ name: "t", pools: ["lab"], scopes: [...KEY_SCOPES] }).scopes).toHaveLength(8);
  });
});
