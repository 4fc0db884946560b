/**
 * Random identifiers and secrets for issued credentials (device tokens, API keys): an id to name
 * one in lists and logs, and a secret shown once and stored only as its hash.
 */

export function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** URL- and header-safe: a secret that may end up in a query string or an Authorization header. */
export function randomBase64url(bytes: number): string {
  let bin = "";
  for (const b of crypto.getRandomValues(new Uint8Array(bytes))) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
