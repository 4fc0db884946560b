// @ts-check
// Keeps results within what is worth sending to an LLM, and always says when something was cut.

/**
 * Cut `text` to at most `maxBytes` UTF-8 bytes, without splitting a character.
 * @param {string} text @param {number} maxBytes
 * @returns {{ text: string, truncated: boolean }}
 */
export function capBytes(text, maxBytes) {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= maxBytes) return { text, truncated: false };
  // Decoding a cut buffer may leave a replacement char at the end; drop it.
  const cut = buf
    .subarray(0, maxBytes)
    .toString("utf8")
    .replace(/\uFFFD$/, "");
  return { text: cut, truncated: true };
}

/**
 * @param {string} text @param {number} maxBytes @param {string} what e.g. "diff"
 */
export function capWithNote(text, maxBytes, what) {
  const capped = capBytes(text, maxBytes);
  if (!capped.truncated) return text;
  const total = Buffer.byteLength(text, "utf8");
  return `${capped.text}\n[${what} truncated: showing ${maxBytes} of ${total} bytes]`;
}

/**
 * Integer setting from the environment, falling back when unset or not a positive integer.
 * @param {string} name @param {number} fallback
 */
export function envInt(name, fallback) {
  const raw = process.env[name];
  if (!raw) return fallback;
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}
