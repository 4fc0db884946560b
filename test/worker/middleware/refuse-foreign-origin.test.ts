// /mcp refuses what a rebound or foreign browser page could send, before authentication, and
// counts the refusal like the front door's others; MCP_ALLOWED_ORIGINS lets a browser client in.

import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { deploymentOf } from "../../../durable-objects/addresses.js";
import { API, call } from "../support/front-door.js";

const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
const post = (headers: Record<string, string>, vars: Record<string, string> = {}) =>
  call(
    "/mcp",
    {
      method: "POST",
      headers: {
        ...API,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify(ping),
    },
    vars,
  );

const refusals = async () => (await deploymentOf(env).rejections())["/mcp 403 Forbidden origin"] ?? 0;

describe("refuseForeignOrigin on /mcp", () => {
  it("answers a foreign Origin 403 problem+json naming it, counted, even without a token", async () => {
    const before = await refusals();
    const res = await post({ origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({
      title: "Forbidden origin",
      detail: expect.stringContaining("evil.example"),
    });
    const anonymous = await call("/mcp", { method: "POST", headers: { origin: "https://evil.example" }, body: "{}" });
    expect(anonymous.status).toBe(403);
    await expect.poll(refusals).toBe(before + 2);
  });

  it("refuses a non-loopback Host reaching the worker over loopback", async () => {
    const res = await post({ "cf-connecting-ip": "127.0.0.1", host: "evil.example.com" });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { detail: string }).detail).toContain("host evil.example.com");
  });

  it("lets an allow-listed browser origin through to the MCP session check", async () => {
    const vars = { MCP_ALLOWED_ORIGINS: "https://app.example, http://localhost:5173" };
    expect((await post({ origin: "https://app.example" }, vars)).status).toBe(400); // no session: past the guard
    expect((await post({ origin: "https://other.example" }, vars)).status).toBe(403);
    expect((await post({})).status).toBe(400);
  });

  it("rejects an allow-list entry that is not an origin, naming the setting", async () => {
    const res = await post({}, { MCP_ALLOWED_ORIGINS: "https://app.example/path" });
    expect(res.status).toBe(500);
    expect(((await res.json()) as { detail: string }).detail).toContain("MCP_ALLOWED_ORIGINS");
  });
});
