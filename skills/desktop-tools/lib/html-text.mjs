// @ts-check
// HTML → readable plain text for the LLM: no markup, scripts, styles or images; links kept as
// "text [url]" so the model can follow them.
import { convert } from "html-to-text";

/**
 * @param {string} html
 * @param {string} [pageUrl] makes root-relative links ("/more") absolute
 */
export function htmlToText(html, pageUrl) {
  const baseUrl = pageUrl ? new URL(pageUrl).origin : undefined;
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: "img", format: "skip" },
      { selector: "script", format: "skip" },
      { selector: "style", format: "skip" },
      { selector: "noscript", format: "skip" },
      ...["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({ selector, options: { uppercase: false } })),
      { selector: "a", options: { baseUrl, ignoreHref: false, hideLinkHrefIfSameAsText: true, noAnchorUrl: true } },
    ],
  })
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
