// @ts-check
/** Thumbnails of the images an event carries (docs/images.md): each links to the full image. */
import { el } from "./dom.js";

const IMAGE_URL = /^\/v1\/conversations\/[^/]+\/images\/[0-9a-f]{64}$/;

/**
 * The image references among an event's blocks (a tool result's `content`, a message's `images`),
 * as a row of thumbnails; null when there are none. Only the conversation's own image route is
 * used as a source, and the page's session authorizes it as it does the event stream.
 * @param {unknown} blocks
 * @returns {HTMLElement | null}
 */
export function thumbnails(blocks) {
  if (!Array.isArray(blocks)) return null;
  const images = blocks.filter((b) => b && b.type === "image" && typeof b.url === "string" && IMAGE_URL.test(b.url));
  if (images.length === 0) return null;
  return el(
    "div",
    { class: "thumbs" },
    ...images.map((b) => {
      const size = b.width && b.height ? `${b.width}x${b.height} ` : "";
      const label = `${b.media_type} ${size}${b.bytes} bytes`;
      return el(
        "a",
        { href: b.url, target: "_blank", rel: "noopener", title: label },
        el("img", { src: b.url, alt: label, loading: "lazy", class: "thumb" }),
      );
    }),
  );
}
