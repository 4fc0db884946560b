/**
 * DNS rebinding protection (runtime/request-origin.ts): which Host/Origin pairs a server refuses,
 * as the MCP transport specification asks, locally (wrangler dev on 127.0.0.1) and deployed.
 */
import { describe, expect, it } from "vitest";
import { isLoopbackHost, type OriginCheck, originRefusal } from "../../../runtime/request-origin.js";

const local = (over: Partial<OriginCheck>): OriginCheck => ({
  url: "http://127.0.0.1:8787/mcp",
  host: "127.0.0.1:8787",
  origin: null,
  clientIp: "127.0.0.1",
  allowedOrigins: [],
  ...over,
});

// Under workerd the URL carries the Host the client sent, so a rebound request looks like this.
const rebound = (over: Partial<OriginCheck> = {}) =>
  local({ url: "http://evil.example.com/mcp", host: "evil.example.com", origin: "http://evil.example.com", ...over });

const deployed = (over: Partial<OriginCheck>): OriginCheck => ({
  url: "https://fleet.example/mcp",
  host: "fleet.example",
  origin: null,
  clientIp: "203.0.113.9",
  allowedOrigins: [],
  ...over,
});

describe("originRefusal", () => {
  it("serves a client that sends no Origin (MCP clients outside a browser)", () => {
    expect(originRefusal(local({}))).toBeNull();
    expect(originRefusal(deployed({}))).toBeNull();
  });

  it("refuses a rebound name reaching a loopback address, though Origin matches the URL", () => {
    expect(originRefusal(rebound())).toBe("host evil.example.com is not a loopback address of this server");
    expect(originRefusal(rebound({ origin: null }))).toMatch(/host evil.example.com/);
  });

  it("tells a loopback server by its URL as well as by the peer address", () => {
    expect(originRefusal(local({ clientIp: null, host: "evil.example.com" }))).toMatch(/not a loopback/);
    expect(originRefusal(rebound({ clientIp: "::1" }))).toMatch(/not a loopback/);
    expect(originRefusal(rebound({ clientIp: "::ffff:127.0.0.1" }))).toMatch(/not a loopback/);
  });

  it("accepts every loopback spelling of Host and a same-origin browser page", () => {
    for (const host of ["localhost:8787", "127.0.0.1:8787", "[::1]:8787", "127.1.2.3", "LOCALHOST"]) {
      const url = `http://${host}/mcp`;
      expect(originRefusal(local({ url, host, origin: new URL(url).origin }))).toBeNull();
    }
  });

  it("refuses a foreign Origin, on loopback and deployed", () => {
    expect(originRefusal(local({ origin: "http://evil.example.com" }))).toBe(
      "origin http://evil.example.com is not allowed (MCP_ALLOWED_ORIGINS)",
    );
    expect(originRefusal(deployed({ origin: "https://evil.example" }))).toMatch(/origin https:\/\/evil.example/);
    expect(originRefusal(local({ origin: "null" }))).toMatch(/origin null/);
    // another port is another origin
    expect(originRefusal(local({ origin: "http://127.0.0.1:9999" }))).toMatch(/not allowed/);
  });

  it("lets in the origins of the allow-list, and their Host behind a local proxy", () => {
    const allowedOrigins = ["https://app.example"];
    expect(originRefusal(deployed({ origin: "https://app.example", allowedOrigins }))).toBeNull();
    expect(originRefusal(local({ origin: "https://app.example", allowedOrigins }))).toBeNull();
    expect(originRefusal(local({ url: "http://app.example/mcp", host: "app.example", allowedOrigins }))).toBeNull();
    expect(originRefusal(deployed({ origin: "https://app.example.evil", allowedOrigins }))).toMatch(/not allowed/);
  });

  it("applies no Host rule to a deployed server reached by its name", () => {
    expect(originRefusal(deployed({ origin: "https://fleet.example" }))).toBeNull();
  });
});

describe("isLoopbackHost", () => {
  it("knows loopback names and addresses, and nothing else", () => {
    for (const h of ["localhost", "a.localhost", "127.0.0.1", "127.255.0.1", "[::1]", "::1", "localhost."])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ["evil.example.com", "10.0.0.1", "0.0.0.0", "[::2]", "localhost.evil", "128.0.0.1"])
      expect(isLoopbackHost(h), h).toBe(false);
  });
});
