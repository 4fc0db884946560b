// Each authorization factory on a bare route: who it lets through (c.var.principal) and the problem
// it answers otherwise. The routes' own tests cover the same rules through the real API.

import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../../worker/env.js";
import { authorize, authorizeAdmin, authorizeDevice, authorizeSender } from "../../../worker/middleware/authorize.js";
import { SESSION_COOKIE, SESSION_TTL_MS, signSession } from "../../../worker/middleware/dashboard-session.js";
import { loadConfig } from "../../../worker/middleware/load-config.js";
import { ADMIN, API } from "../support/front-door.js";

const app = new Hono<AppEnv>().use(loadConfig);
app.all("/admin", authorizeAdmin, (c) => c.json(c.var.principal));
app.all("/api", authorize("devices:read"), (c) => c.json(c.var.principal));
app.get("/devices/:agent_id", authorizeDevice, (c) => c.json(c.var.deviceProof));
app.post("/messages", authorizeSender, (c) => c.json({ principal: c.var.principal.id, body: c.var.rawBody }));

const send = (path: string, init: RequestInit = {}, vars: Record<string, string> = {}) =>
  app.request(path, init, { ...env, ...vars });
const problem = async (res: Response) => (await res.json()) as { title: string; detail: string };
const session = async () =>
  `${SESSION_COOKIE}=${await signSession(env.ADMIN_TOKEN!, Date.now() + SESSION_TTL_MS - 1000)}`;

describe("authorizeAdmin", () => {
  it("lets the admin token and the dashboard session through as the admin", async () => {
    expect(await (await send("/admin", { headers: ADMIN })).json()).toMatchObject({ id: "admin", admin: true });
    const viaCookie = await send("/admin", { headers: { cookie: await session() } });
    expect(await viaCookie.json()).toMatchObject({ id: "admin" });
  });

  it("refuses a valid API token with 403 naming the admin token; an unknown token stays 401", async () => {
    const api = await send("/admin", { headers: API });
    expect(api.status).toBe(403);
    expect(api.headers.get("content-type")).toContain("application/problem+json");
    expect(await problem(api)).toMatchObject({
      title: "Admin token required",
      detail: "this endpoint needs the admin token (ADMIN_TOKEN); the API token is not enough",
    });
    const unknown = await send("/admin", { headers: { authorization: "Bearer not-a-token" } });
    expect(unknown.status).toBe(401);
    expect(await problem(unknown)).toMatchObject({ title: "Unauthorized", detail: "invalid token" });
  });

  it("refuses a missing token, and a cookie write without the CSRF header", async () => {
    const none = await send("/admin");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    const write = await send("/admin", { method: "POST", headers: { cookie: await session() } });
    expect(write.status).toBe(403);
    expect((await problem(write)).detail).toContain("X-Edgeloop-CSRF");
  });

  it("answers 503 when the deployment has no admin token", async () => {
    const res = await send("/admin", { headers: ADMIN }, { ADMIN_TOKEN: "" });
    expect(res.status).toBe(503);
    expect(await problem(res)).toMatchObject({ title: "Not configured" });
    expect((await problem(await send("/admin", { headers: ADMIN }, { ADMIN_TOKEN: "" }))).detail).toMatch(
      /^Not set on this worker: ADMIN_TOKEN\. This request needs ADMIN_TOKEN\./,
    );
  });
});

describe("authorize(scope)", () => {
  it("lets the API and admin tokens through with their principals", async () => {
    expect(await (await send("/api", { headers: API })).json()).toMatchObject({ id: "api", scoped: false });
    expect(await (await send("/api", { headers: ADMIN })).json()).toMatchObject({ id: "admin", admin: true });
  });

  it("refuses an unknown token (401) and, with neither token configured, answers 503", async () => {
    expect((await send("/api", { headers: { authorization: "Bearer nope" } })).status).toBe(401);
    const open = await send("/api", { headers: API }, { API_TOKEN: "", ADMIN_TOKEN: "" });
    expect(open.status).toBe(503);
    expect((await problem(open)).detail).toContain("This request needs API_TOKEN or ADMIN_TOKEN.");
  });
});

describe("authorizeDevice", () => {
  it("says how the device proved itself: a DEVICE_TOKENS entry, or the token's hash for its hub", async () => {
    const env1 = await send("/devices/pi-1", { headers: { authorization: "Bearer device-secret-1" } });
    expect(await env1.json()).toEqual({ "x-edgeloop-token-id": "env" });
    // Another device's token is not this one's: its hash goes to pi-1's hub, which does not know it.
    const other = await send("/devices/pi-1", { headers: { authorization: "Bearer device-secret-2" } });
    expect(Object.keys((await other.json()) as object)).toEqual(["x-edgeloop-token-sha256"]);
    const none = await send("/devices/pi-1");
    expect(none.status).toBe(401);
    expect((await problem(none)).detail).toBe("send Authorization: Bearer <device token>");
  });
});

describe("authorizeSender", () => {
  it("reads the body once and lets a bearer sender through with it", async () => {
    const res = await send("/messages", { method: "POST", headers: API, body: '{"text":"hi"}' });
    expect(await res.json()).toEqual({ principal: "api", body: '{"text":"hi"}' });
  });

  it("refuses a body over MAX_BODY_BYTES and its images' room (413) and a signed webhook without WEBHOOK_SECRETS (503)", async () => {
    // The room: 1024 bytes of images, base64-encoded (1368), plus 16 × 256 bytes of JSON around them.
    const vars = { MAX_BODY_BYTES: "1024", MESSAGE_IMAGES_MAX_BYTES: "1024" };
    const room = 1024 + 1368 + 16 * 256;
    const fits = await send("/messages", { method: "POST", headers: API, body: "x".repeat(room) }, vars);
    expect(fits.status).toBe(200);
    const big = await send("/messages", { method: "POST", headers: API, body: "x".repeat(room + 1) }, vars);
    expect(big.status).toBe(413);
    const signed = await send("/messages", {
      method: "POST",
      headers: { "x-webhook-signature": "sha256=00", "x-webhook-timestamp": "1" },
      body: "{}",
    });
    expect(signed.status).toBe(503);
    expect((await problem(signed)).title).toBe("Not configured");
  });
});
