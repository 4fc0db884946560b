/**
 * Reads at most `maxBytes` of a response body and cancels the rest, so a huge or endless
 * response can neither exhaust memory nor hold the call open. Decoding in stream mode drops a
 * UTF-8 sequence cut in half at the cap instead of inventing a replacement character.
 */
export async function readCappedBody(
  response: Response,
  maxBytes: number,
): Promise<{ text: string; bytes: number; truncated: boolean }> {
  if (response.body === null) return { text: "", bytes: 0, truncated: false };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - bytes;
    if (value.byteLength > room) {
      text += decoder.decode(value.subarray(0, room), { stream: true });
      bytes += room;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    text += decoder.decode(value, { stream: true });
    bytes += value.byteLength;
  }
  if (!truncated) text += decoder.decode();
  return { text, bytes, truncated };
}

/** Cuts text to at most `maxBytes` of UTF-8 without splitting a character. */
export function capUtf8(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const encoded = new TextEncoder().encode(text);
  if (encoded.byteLength <= maxBytes) return { text, truncated: false };
  return { text: new TextDecoder().decode(encoded.subarray(0, maxBytes), { stream: true }), truncated: true };
}
