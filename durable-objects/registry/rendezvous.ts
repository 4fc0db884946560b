/**
 * Rendezvous (highest-random-weight) hashing: every candidate gets a score from hash(key, id) and
 * the highest wins. When a device leaves, only the keys it held move; when one joins, only keys it
 * now wins move. Pure and synchronous so routing is deterministic and testable.
 */
export function rendezvousPick(key: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestScore = -1;
  for (const id of candidates) {
    const score = hash53(`${key}\u0000${id}`);
    // Ties (astronomically rare) go to the smaller id so every caller agrees.
    if (score > bestScore || (score === bestScore && best !== null && id < best)) {
      best = id;
      bestScore = score;
    }
  }
  return best;
}

/** cyrb53: a fast, well-mixed 53-bit string hash (not cryptographic; routing needs spread only). */
export function hash53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
