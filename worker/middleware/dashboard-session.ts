import type { Context } from "hono";
import { generateCookie, getCookie } from "hono/cookie";
import { problemResponse } from "../../runtime/problem.js";
import { safeEqual } from "./safe-equal.js";

/**
 * The dashboard's login session. The cookie holds `<expiry ms>.<HMAC-SHA256(admin token, expiry)>`,
 * never the token: a leaked cookie expires, and rotating ADMIN_TOKEN ends every session at once.
 */
const SESSION_NAME = "edgeloop_session";
export const SESSION_COOKIE = `__Host-${SESSION_NAME}`;
export const SESSION_TTL_MS = 12 * 3600 * 1000;
/** Cookie-authenticated writes must carry this header; a cross-site form or <img> cannot set it. */
export const CSRF_HEADER = "x-edgeloop-csrf";

const PURPOSE = "edgeloop-dashboard-session.v1";

async function mac(adminToken: string, expiresAt: number): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", enc.encode(adminToken), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(`${PURPOSE}.${expiresAt}`)));
  return btoa(String.fromCharCode(...sig))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export async function signSession(adminToken: string, expiresAt: number): Promise<string> {
  return `${expiresAt}.${await mac(adminToken, expiresAt)}`;
}

export async function verifySession(adminToken: string, value: string | undefined, now = Date.now()): Promise<boolean> {
  const m = value?.match(/^(\d{13})\.([A-Za-z0-9_-]{43})$/);
  if (!m) return false;
  const expiresAt = Number(m[1]);
  // Expired sessions are refused even with a valid signature; so are ones claiming a far-future expiry.
  if (expiresAt <= now || expiresAt > now + SESSION_TTL_MS) return false;
  return safeEqual(m[2]!, await mac(adminToken, expiresAt));
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Whether a request may act on a session cookie, which stands for the admin token: the session
 * must be valid and unexpired (401), and a write must carry `X-Edgeloop-CSRF: 1` (403). Browsers
 * send cookies with some cross-site requests SameSite does not cover (old browsers, same-site
 * subdomains), but never a custom header. Null when the request may go on.
 */
export async function sessionRefusal(
  adminToken: string,
  session: string,
  method: string,
  csrfHeader: string | undefined,
): Promise<Response | null> {
  if (!(await verifySession(adminToken, session)))
    return problemResponse(401, "Unauthorized", "the session has expired; log in again");
  if (!SAFE_METHODS.has(method) && csrfHeader !== "1")
    return problemResponse(
      403,
      "Forbidden",
      "cookie-authenticated requests that change state need the header X-Edgeloop-CSRF: 1",
    );
  return null;
}

/** The session cookie's value, if the request sends one. */
export const sessionOf = (c: Context): string | undefined => getCookie(c, SESSION_COOKIE);

export function sessionCookie(value: string, maxAgeSeconds: number): string {
  // __Host- prefix: Secure, Path=/, no Domain — the browser refuses to let a subdomain overwrite it.
  return generateCookie(SESSION_NAME, value, {
    prefix: "host",
    maxAge: maxAgeSeconds,
    httpOnly: true,
    sameSite: "Strict",
  });
}
