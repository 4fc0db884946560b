import { type Context, Hono } from "hono";
import { z } from "zod";
import { problemResponse } from "../../runtime/problem.js";
import { DASHBOARD_HTML } from "../dashboard/dashboard-page.js";
import { loginPage, safeNext } from "../dashboard/login-page.js";
import { pageHeaders } from "../dashboard/security-headers.js";
import type { AppEnv } from "../env.js";
import {
  SESSION_TTL_MS,
  sessionCookie,
  sessionOf,
  signSession,
  verifySession,
} from "../middleware/dashboard-session.js";
import { safeEqual } from "../middleware/safe-equal.js";
import { missingSettings, notConfigured } from "../missing-settings.js";
import { missingSettingsPage } from "../missing-settings-page.js";

/**
 * The operator dashboard: `/` (the page, or the login form without a session), `POST /login` and
 * `POST /logout`. The page itself holds no data; its browser modules and stylesheet are static
 * assets (`/dashboard/*`, wrangler.toml `[assets]`: the same for everyone, no session needed), and
 * they read the admin API with the session cookie.
 */
export const dashboard = new Hono<AppEnv>();

const LoginForm = z.object({ token: z.string().min(1).max(4096), next: z.string().max(8192).optional() });

function html(c: Context, body: string, status: 200 | 401 = 200): Response {
  return c.body(body, status, pageHeaders("text/html; charset=utf-8"));
}

/** Without an admin token there is no dashboard: a browser gets a page saying what to set, a program the 503. */
function dashboardNotConfigured(c: Context<AppEnv>): Response {
  if (!c.req.header("accept")?.includes("text/html")) return notConfigured(c.var.config, c.env, "ADMIN_TOKEN");
  const local = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(new URL(c.req.url).hostname);
  const page = missingSettingsPage("ADMIN_TOKEN", missingSettings(c.var.config, c.env, "ADMIN_TOKEN"), local);
  return c.body(page, 503, pageHeaders("text/html; charset=utf-8"));
}

/** Login and logout are plain form posts (no custom header possible), so they check Origin instead. */
function crossOrigin(c: Context): boolean {
  const origin = c.req.header("origin");
  return origin !== undefined && origin !== "null" && origin !== new URL(c.req.url).origin;
}

dashboard.get("/", async (c) => {
  const admin = c.var.config.ADMIN_TOKEN;
  if (!admin) return dashboardNotConfigured(c);
  return html(c, (await verifySession(admin, sessionOf(c))) ? DASHBOARD_HTML : loginPage());
});

dashboard.post("/login", async (c) => {
  const admin = c.var.config.ADMIN_TOKEN;
  if (!admin) return dashboardNotConfigured(c);
  if (crossOrigin(c)) return problemResponse(403, "Forbidden", "cross-origin login refused");
  const form = LoginForm.safeParse(await c.req.parseBody().catch(() => ({})));
  if (!form.success) return html(c, loginPage("Enter the admin token."), 401);
  const next = safeNext(form.data.next);
  if (!(await safeEqual(form.data.token, admin)))
    return html(c, loginPage("That is not the admin token.", next === "/" ? undefined : next), 401);
  const value = await signSession(admin, Date.now() + SESSION_TTL_MS);
  return c.body(null, 303, {
    location: next,
    "set-cookie": sessionCookie(value, SESSION_TTL_MS / 1000),
    "cache-control": "no-store",
  });
});

dashboard.post("/logout", (c) => {
  if (crossOrigin(c)) return problemResponse(403, "Forbidden", "cross-origin logout refused");
  return c.body(null, 303, { location: "/", "set-cookie": sessionCookie("", 0), "cache-control": "no-store" });
});
