import { escapeHtml } from "./html-escape.js";

/** The shell of the dashboard's one-form pages (log in, OAuth consent): `body` is trusted HTML. */
export function singlePage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/dashboard.css">
<link rel="stylesheet" href="/dashboard/login.css">
</head>
<body>
<main id="main" class="single">
${body}
</main>
</body>
</html>`;
}
