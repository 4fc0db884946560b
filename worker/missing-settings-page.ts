import { escapeHtml } from "./dashboard/html-escape.js";
import { DEPLOY_COMMAND, type MissingSetting, type Requirement } from "./missing-settings.js";

/**
 * What a browser gets at `/` from a worker without the settings the dashboard needs: the same
 * list the 503 problem+json carries (missing-settings.ts), as a page a person can act on. Reached
 * on loopback it is plain `npx wrangler dev` without a `.dev.vars`, whose fix is local, not a secret.
 */
export function missingSettingsPage(requirement: Requirement, missing: MissingSetting[], local = false): string {
  const items = missing
    .map(
      (m) =>
        `<li><strong>${escapeHtml(m.setting)}</strong> — ${escapeHtml(m.needed_for)}<br>` +
        `<code>${escapeHtml(m.set_with)}</code></li>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>edgeloop — not set up</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/dashboard.css">
<link rel="stylesheet" href="/dashboard/setup.css">
</head>
<body>
<main id="main" class="setup">
  <h1>This worker is not set up</h1>${
    local
      ? `
  <p class="local">Running on this machine (<code>npx wrangler dev</code>)? Local settings come from
  <code>.dev.vars</code>: <code>cp .dev.vars.example .dev.vars</code> and start it again, or run
  <code>npm run dev</code> (or <code>npm start</code>), which make up local tokens and print them.
  The rest of this page is for a deployed worker.</p>`
      : ""
  }
  <p>It runs, but it is missing settings, so it refuses requests (503). This page needs
  <strong>${escapeHtml(requirement)}</strong>. Not set:</p>
  <ul>
${items}
  </ul>
  <p>From a clone of edgeloop, <code>${DEPLOY_COMMAND}</code> generates the tokens, sets them as secrets,
  deploys, and prints the admin token once. The whole path, and each step by hand: <code>docs/deploy.md</code>.</p>
</main>
</body>
</html>`;
}
