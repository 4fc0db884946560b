import { describe, expect, it } from "vitest";
import { canSee, hasScope, ownerOf, scopedPrincipal, targetRefusal, unscoped } from "../../../runtime/access.js";
import { isLoopbackHost, type OriginCheck, originRefusal } from "../../../runtime/request-origin.js";

/** The edges of the Host and credential checks that issue 39's mutation run found unpinned. */
const local = (over: Partial<OriginCheck>): OriginCheck => ({
  url: "http://127.0.0.1:8787/mcp",
  host: "127.0.0.1:8787",
  origin: null,
  clientIp: "127.0.0.1",
  allowedOrigins: [],
  ...over,
});

describe("the Host rule of a local server", () => {
  it("refuses a Host that only contains a loopback address, with junk before or after it", () => {
    for (const host of ["x[::1]:80", "[::1]:80x", "0[::1]", "[::]1", "evil.example:8787"])
      expect(originRefusal(local({ host })), host).toBe(`host ${host} is not a loopback address of this server`);
    expect(isLoopbackHost("0[::1]")).toBe(false);
    expect(isLoopbackHost("[::]1")).toBe(false);
  });

  it("takes a bracketed loopback address with its port", () => {
    expect(originRefusal(local({ host: "[::1]:8787" }))).toBeNull();
    expect(originRefusal(local({ host: "[::1]" }))).toBeNull();
    expect(originRefusal(local({ host: "[0:0:0:0:0:0:0:1]:80" }))).toBeNull();
  });

  it("knows a public IPv6 address is not loopback", () => {
    expect(isLoopbackHost("[2606:4700::1]")).toBe(false);
    expect(isLoopbackHost("2606:4700::1")).toBe(false);
  });

  it("applies only to a server that is local by its URL or its peer", () => {
    const remote = { url: "https://edge.example/mcp", host: "evil.example", clientIp: "203.0.113.9" };
    expect(originRefusal(local(remote))).toBeNull();
    expect(originRefusal(local({ ...remote, clientIp: null }))).toBeNull();
    expect(originRefusal(local({ ...remote, clientIp: "127.0.0.1" }))).toBe(
      "host evil.example is not a loopback address of this server",
    );
  });

  it("skips an allow-list entry that is not a URL, and still takes the others' hosts", () => {
    const allowedOrigins = ["not a url", "https://app.example"];
    expect(originRefusal(local({ host: "app.example", allowedOrigins }))).toBeNull();
    expect(originRefusal(local({ host: "not a url", allowedOrigins }))).toBe(
      "host not a url is not a loopback address of this server",
    );
  });
});

describe("a credential's reach", () => {
  it("of an unscoped credential: every device and pool, every scope, admin only when said", () => {
    expect(unscoped("api")).toEqual({ id: "api", scoped: false, admin: false, reach: "*", pools: "*", scopes: "all" });
    expect(unscoped("admin", true).admin).toBe(true);
    expect(hasScope(unscoped("api"), "messages")).toBe(true);
    expect(hasScope({ scopes: "all" }, "devices:read" as never)).toBe(true);
  });

  it("of a scoped key: never admin, and only its own scopes", () => {
    const p = scopedPrincipal("key_1", { agents: ["pi-1"], pools: [], scopes: ["messages"] as never }, new Map());
    expect(p.admin).toBe(false);
    expect(p.scoped).toBe(true);
    expect(ownerOf(p)).toEqual({ id: "key_1", scoped: true, reach: ["pi-1"] });
    expect(canSee(p, "key_1")).toBe(true);
    expect(canSee(p, "key_2")).toBe(false);
  });

  it("says which pool or device it may not use, by name", () => {
    const p = { reach: ["pi-1"], pools: ["lab"] };
    expect(targetRefusal(p, { pool: "prod" })).toEqual({
      field: "pool",
      detail: "pool 'prod' is not one this credential may use",
    });
    expect(targetRefusal(p, { agent_id: "pi-2" })).toEqual({
      field: "agent_id",
      detail: "agent 'pi-2' is not one this credential may message",
    });
    expect(targetRefusal(p, { agent_ids: ["pi-1", "pi-3"] })).toEqual({
      field: "agent_ids",
      detail: "agent 'pi-3' is not one this credential may message",
    });
  });
});
