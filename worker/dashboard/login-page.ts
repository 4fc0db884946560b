import { escapeHtml } from "./html-escape.js";
import { singlePage } from "./single-page.js";

/**
 * The admin login form. The token is posted once, checked, and exchanged for a signed session
 * cookie. `next`: where to go after (the OAuth consent page that sent the admin here; safeNext).
 */
export function loginPage(error?: string, next?: string): string {
  return singlePage(
    "edgeloop — log in",
    `<form class="login" method="post" action="/login">
  <h1>edgeloop</h1>
  <p>Operator dashboard. Log in with the deployment's admin token.</p>
  ${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ""}
  <label for="token">Admin token</label>
  <input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
  ${next ? `<input type="hidden" name="next" value="${escapeHtml(next)}">` : ""}
  <button class="primary" type="submit">Log in</button>
</form>`,
  );
}

/**
 * Where a login may send the browser next: the consent page only, on this origin (a path that
 * starts with it; never `//host` or a URL), else the dashboard. No open redirect through /login.
 */
export function safeNext(next: unknown): string {
  return typeof next === "string" && /^\/oauth\/authorize\?[^\\]*$/.test(next) && !next.startsWith("//") ? next : "/";
}
