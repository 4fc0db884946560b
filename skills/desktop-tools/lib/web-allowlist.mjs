// @ts-check
// EDGELOOP_WEBFETCH_ALLOW decides which hosts the web tools may reach: a comma list of domains
// (each also allows its subdomains), "*" for any host, unset or empty for none.
import { permissionError, usageError } from "./exit.mjs";

/** @returns {string[] | "any"} */
export function allowedDomains() {
  const entries = (process.env.EDGELOOP_WEBFETCH_ALLOW ?? "")
    .split(",")
    .map((d) =>
      d
        .trim()
        .toLowerCase()
        .replace(/^\*?\./, "")
        .replace(/\.$/, ""),
    )
    .filter(Boolean);
  return entries.includes("*") ? "any" : entries;
}

/** @param {string} host @param {string[] | "any"} allowed */
export function hostAllowed(host, allowed) {
  if (allowed === "any") return true;
  const h = host
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  return allowed.some((d) => h === d || h.endsWith(`.${d}`));
}

/**
 * Parse and check a URL a web tool is about to request; exits 64 (bad URL) or 77 (not allowed).
 * @param {string} raw @param {string} tool name for the message
 */
export function checkUrl(raw, tool) {
  let url;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`not a valid URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw usageError(`only http and https URLs are supported, not ${url.protocol}`);
  const allowed = allowedDomains();
  if (allowed !== "any" && allowed.length === 0) {
    throw permissionError(
      `${tool} is not configured: set EDGELOOP_WEBFETCH_ALLOW to the domains it may fetch (or "*")`,
    );
  }
  if (!hostAllowed(url.hostname, allowed))
    throw permissionError(`host ${url.hostname} is not in the allowed domains (EDGELOOP_WEBFETCH_ALLOW)`);
  return url;
}
