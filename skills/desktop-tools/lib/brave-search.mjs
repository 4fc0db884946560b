// @ts-check
// Brave Search web API client shared by websearch and codesearch.
import { failedError, permissionError } from "./exit.mjs";
import { fetchCapped } from "./http-fetch.mjs";

const DEFAULT_BASE_URL = "https://api.search.brave.com";
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/**
 * @typedef {{ title: string, url: string, description: string }} SearchResult
 */

/**
 * @param {string} query @param {number} count @param {string} tool name for messages
 * @returns {Promise<SearchResult[]>}
 */
export async function braveSearch(query, count, tool) {
  const key = process.env.EDGELOOP_BRAVE_API_KEY;
  if (!key) throw permissionError(`${tool} is not configured: set EDGELOOP_BRAVE_API_KEY`);
  // Appended, not resolved, so a base with a path (a proxy prefix) keeps it.
  const base = (process.env.EDGELOOP_BRAVE_BASE_URL || DEFAULT_BASE_URL).replace(/\/+$/, "");
  let url;
  try {
    url = new URL(`${base}/res/v1/web/search`);
  } catch {
    throw failedError(`EDGELOOP_BRAVE_BASE_URL is not a valid URL: ${base}`);
  }
  url.searchParams.set("q", query);
  url.searchParams.set("count", String(count));

  const page = await fetchCapped(url, {
    maxBytes: MAX_RESPONSE_BYTES,
    headers: { Accept: "application/json", "X-Subscription-Token": key },
  });
  if (page.status !== 200) {
    throw failedError(
      `Brave Search API answered HTTP ${page.status} ${page.statusText}: ${page.body.toString("utf8").slice(0, 200)}`,
    );
  }
  let data;
  try {
    data = JSON.parse(page.body.toString("utf8"));
  } catch {
    throw failedError("Brave Search API returned a response that is not JSON");
  }
  const results = Array.isArray(data?.web?.results) ? data.web.results : [];
  return results.slice(0, count).map((/** @type {any} */ r) => ({
    title: stripTags(String(r?.title ?? "")),
    url: String(r?.url ?? ""),
    description: stripTags(String(r?.description ?? "")),
  }));
}

/**
 * @param {string} query @param {SearchResult[]} results
 */
export function formatResults(query, results) {
  if (results.length === 0) return `No results for "${query}"`;
  return results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}\n   ${r.description}`).join("\n\n");
}

/** Brave marks matched words with <strong>; the LLM wants plain text. @param {string} text */
function stripTags(text) {
  return text
    .replace(/<[^>]*>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}
