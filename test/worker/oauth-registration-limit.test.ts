/**
 * Registering an OAuth app with `/mcp`'s authorization server is rate limited per caller address,
 * by either way (worker/oauth/registration-limit.ts): `POST /oauth/register`, and an authorization
 * request that would fetch an app's metadata document. The real worker app with its real limiter
 * objects and OAUTH_KV; each test comes from an address of its own, so its bucket is its own.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../worker/index.js";

const ORIGIN = "https://edgeloop.example";
const TIGHT = { RATE_LIMIT_REGISTER_BURST: "2", RATE_LIMIT_REGISTER_PER_MIN: "6" };

async function call(path: string, init: RequestInit, address: string): Promise<Response> {
  const ctx = createExecutionContext();
  const headers = new Headers(init.headers);
  headers.set("cf-connecting-ip", address);
  const res = await worker.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers }), { ...env, ...TIGHT }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const register = (address: string) =>
  call(
    "/oauth/register",
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Limited",
        redirect_uris: ["http://127.0.0.1:9/cb"],
        token_endpoint_auth_method: "none",
      }),
    },
    address,
  );

let n = 0;
/** A documentation address (RFC 5737) for each test: its own bucket. */
const address = () => `192.0.2.${++n}`;

async function rejections(): Promise<Record<string, number>> {
  const res = await call("/v1/limits", { headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } }, "198.51.100.1");
  return ((await res.json()) as { rejections: Record<string, number> }).rejections;
}

describe("registering OAuth apps", () => {
  it("POST /oauth/register: a burst, then 429 problem+json with Retry-After; another address is not affected", async () => {
    const from = address();
    const before = (await rejections())["/oauth/register 429 Too many registrations"] ?? 0;
    const statuses: number[] = [];
    let last: Response | null = null;
    for (let i = 0; i < 3; i++) {
      last = await register(from);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([201, 201, 429]);
    expect(last!.headers.get("content-type")).toBe("application/problem+json");
    // 6 per minute: one token every 10 s.
    const retryAfter = Number(last!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(9);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect(await last!.json()).toMatchObject({ status: 429, title: "Too many registrations" });
    expect((await register(address())).status).toBe(201);
    expect((await rejections())["/oauth/register 429 Too many registrations"]).toBe(before + 1);
  });

  it("a CORS preflight takes no token", async () => {
    const from = address();
    for (let i = 0; i < 3; i++)
      await call(
        "/oauth/register",
        { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "POST" } },
        from,
      );
    expect((await register(from)).status).toBe(201);
  });

  it("an authorization request that would fetch a metadata document takes from the same bucket", async () => {
    const from = address();
    expect((await register(from)).status).toBe(201);
    expect((await register(from)).status).toBe(201);
    const authorize = new URL(`${ORIGIN}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      response_type: "code",
      client_id: "https://app.example/client.json",
      redirect_uri: "https://app.example/cb",
      code_challenge: "x".repeat(43),
      code_challenge_method: "S256",
    }).toString();
    const page = await call(`${authorize.pathname}${authorize.search}`, {}, from);
    expect(page.status).toBe(429);
    expect(Number(page.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await page.text()).toContain("Too many new apps from your address.");
  });
});
