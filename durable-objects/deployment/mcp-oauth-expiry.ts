/**
 * When a remote MCP server's access token is renewed: ahead of its expiry (a call started on a
 * token about to lapse would be refused midway), or when the server refused it. A token without
 * `expires_in` is used until the server refuses it.
 */
export const REFRESH_AHEAD_MS = 60_000;

/** The token's expiry as a time, from the token response's `expires_in` (seconds) and when it was received. */
export function expiresAt(expiresIn: number | undefined, receivedAt: number): number | null {
  return typeof expiresIn === "number" && Number.isFinite(expiresIn) && expiresIn > 0
    ? receivedAt + expiresIn * 1000
    : null;
}

export type TokenDecision = "use" | "refresh";

export function tokenDecision(expires: number | null, now: number, refusedByServer: boolean): TokenDecision {
  if (refusedByServer) return "refresh";
  if (expires === null) return "use";
  return now >= expires - REFRESH_AHEAD_MS ? "refresh" : "use";
}

/** Whether a token is past its expiry (not merely due for renewal). */
export function expired(expires: number | null, now: number): boolean {
  return expires !== null && now >= expires;
}
