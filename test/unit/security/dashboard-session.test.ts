import "../../helpers/workers-crypto.js";
import { createHmac } from "node:crypto";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import {
  CSRF_HEADER,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  sessionCookie,
  sessionOf,
  sessionRefusal,
  signSession,
  verifySession,
} from "../../../worker/middleware/dashboard-session.js";

/**
 * The dashboard's login session in Node (workerd: test/worker/middleware/authorize.test.ts,
 * front-door-dashboard-session.test.ts): the cookie is `<expiry ms>.<HMAC-SHA256(admin token, purpose.expiry)>` in
 * base64url, computed here with node:crypto so the format is pinned independently of the code that makes it.
 */
const ADMIN = "admin-token-for-the-session-tests";
const NOW = 1_800_000_000_000;
const expected = (token: string, expiresAt: number) =>
  `${expiresAt}.${createHmac("sha256", token).update(`edgeloop-dashboard-session.v1.${expiresAt}`).digest("base64url")}`;
const detail = async (res: Response) => (await res.json()) as { title: string; detail: string; status: number };

describe("the session cookie's names", () => {
  it("are the __Host- cookie, a 12-hour lifetime and the CSRF header the dashboard sends", () => {
    expect(SESSION_COOKIE).toBe("__Host-edgeloop_session");
    expect(SESSION_TTL_MS).toBe(43_200_000);
    expect(CSRF_HEADER).toBe("x-edgeloop-csrf");
  });

  it("set it Secure, HttpOnly, SameSite=Strict, on / without a Domain, for the given seconds", () => {
    expect(sessionCookie("v.1", 43_200)).toBe(
      "__Host-edgeloop_session=v.1; Max-Age=43200; Path=/; HttpOnly; Secure; SameSite=Strict",
    );
    expect(sessionCookie("", 0)).toBe("__Host-edgeloop_session=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Strict");
  });

  it("read it from the request's cookies, and nothing when it sends none or only the unprefixed name", async () => {
    const app = new Hono().get("/", (c) => c.text(sessionOf(c) ?? "(none)"));
    const read = async (cookie?: string) =>
      (await app.request("/", { headers: cookie === undefined ? {} : { cookie } })).text();
    expect(await read(`other=1; ${SESSION_COOKIE}=123.abc`)).toBe("123.abc");
    expect(await read()).toBe("(none)");
    expect(await read("edgeloop_session=123.abc")).toBe("(none)");
  });
});

describe("signing a session", () => {
  it("is the expiry and the HMAC of the purpose and the expiry under the admin token, in base64url", async () => {
    // Many expiries, so signatures with several '+', '/' of base64 (each must become '-', '_') come up.
    for (let i = 0; i < 64; i++) {
      const at = NOW + i * 7919;
      const value = await signSession(ADMIN, at);
      expect(value).toBe(expected(ADMIN, at));
      expect(value).toMatch(/^\d{13}\.[A-Za-z0-9_-]{43}$/);
    }
    expect(await signSession("another", NOW)).toBe(expected("another", NOW));
  });
});

describe("verifying a session", () => {
  const at = NOW + 60_000;

  it("accepts one it signed, until it expires, and within the lifetime it can have", async () => {
    const value = await signSession(ADMIN, at);
    expect(await verifySession(ADMIN, value, NOW)).toBe(true);
    expect(await verifySession(ADMIN, value, at - 1)).toBe(true);
    expect(await verifySession(ADMIN, value, at)).toBe(false);
    expect(await verifySession(ADMIN, value, at + 1)).toBe(false);
  });

  it("accepts an expiry of exactly the lifetime ahead, and refuses one a millisecond further", async () => {
    expect(await verifySession(ADMIN, await signSession(ADMIN, NOW + SESSION_TTL_MS), NOW)).toBe(true);
    expect(await verifySession(ADMIN, await signSession(ADMIN, NOW + SESSION_TTL_MS + 1), NOW)).toBe(false);
    expect(await verifySession(ADMIN, await signSession(ADMIN, NOW + 10 * SESSION_TTL_MS), NOW)).toBe(false);
  });

  it("judges by the clock when no time is given", async () => {
    expect(await verifySession(ADMIN, await signSession(ADMIN, Date.now() + 60_000))).toBe(true);
    expect(await verifySession(ADMIN, await signSession(ADMIN, Date.now() - 60_000))).toBe(false);
  });

  it("refuses one signed with another token: rotating the admin token ends every session", async () => {
    expect(await verifySession(ADMIN, await signSession("old-admin-token", at), NOW)).toBe(false);
  });

  it("refuses a changed expiry or signature", async () => {
    const value = await signSession(ADMIN, at);
    const [expiry, sig] = value.split(".") as [string, string];
    expect(await verifySession(ADMIN, `${Number(expiry) + 1000}.${sig}`, NOW)).toBe(false);
    const flipped = sig[0] === "A" ? `B${sig.slice(1)}` : `A${sig.slice(1)}`;
    expect(await verifySession(ADMIN, `${expiry}.${flipped}`, NOW)).toBe(false);
    expect(await verifySession(ADMIN, `${expiry}.${"A".repeat(43)}`, NOW)).toBe(false);
  });

  it("refuses anything around a valid value, and values of another shape", async () => {
    const value = await signSession(ADMIN, at);
    const [expiry, sig] = value.split(".") as [string, string];
    for (const bad of [
      `1${value}`,
      `x${value}`,
      `${value}=`,
      `${value}A`,
      ` ${value}`,
      `${value}\n`,
      `${expiry}.${sig}.${sig}`,
      `${expiry}${sig}`,
      `${expiry}.${sig.slice(0, 42)}`,
      `${expiry.slice(1)}.${sig}`,
      `${expiry}.${sig.slice(0, 42)}+`,
      "",
    ])
      expect(await verifySession(ADMIN, bad, NOW), bad).toBe(false);
    expect(await verifySession(ADMIN, undefined, NOW)).toBe(false);
  });
});

describe("what a request may do with a session", () => {
  const valid = () => signSession(ADMIN, Date.now() + 60_000);

  it("reads with it without the CSRF header (GET, HEAD, OPTIONS)", async () => {
    for (const method of ["GET", "HEAD", "OPTIONS"])
      expect(await sessionRefusal(ADMIN, await valid(), method, undefined), method).toBeNull();
  });

  it("writes with it only with X-Edgeloop-CSRF: 1 (403 otherwise)", async () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE", "get"]) {
      expect(await sessionRefusal(ADMIN, await valid(), method, "1"), method).toBeNull();
      for (const csrf of [undefined, "", "true", "0"]) {
        const res = await sessionRefusal(ADMIN, await valid(), method, csrf);
        expect(res?.status, `${method} ${csrf}`).toBe(403);
        expect(await detail(res!)).toEqual({
          type: "about:blank",
          status: 403,
          title: "Forbidden",
          detail: "cookie-authenticated requests that change state need the header X-Edgeloop-CSRF: 1",
        });
      }
    }
  });

  it("does nothing with an expired or forged one (401), whatever the method and header", async () => {
    for (const session of [await signSession(ADMIN, Date.now() - 1), `${Date.now() + 60_000}.${"A".repeat(43)}`])
      for (const [method, csrf] of [
        ["GET", undefined],
        ["POST", "1"],
      ] as const) {
        const res = await sessionRefusal(ADMIN, session, method, csrf);
        expect(res?.status).toBe(401);
        expect(res?.headers.get("content-type")).toBe("application/problem+json");
        expect(await detail(res!)).toEqual({
          type: "about:blank",
          status: 401,
          title: "Unauthorized",
          detail: "the session has expired; log in again",
        });
      }
  });
});
