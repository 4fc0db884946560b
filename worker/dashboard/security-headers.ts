/**
 * Headers for the dashboard's pages (its static files get theirs from public/_headers). Scripts
 * and styles come only from this origin (the page has no inline script), fetch/EventSource only
 * to it, and nothing may frame the page.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

export function pageHeaders(contentType: string): Record<string, string> {
  return {
    "content-type": contentType,
    "content-security-policy": DASHBOARD_CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
  };
}
