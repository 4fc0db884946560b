import { sha256Hex } from "../../../runtime/digest.js";
import { randomBase64url, randomHex } from "../../../runtime/random-token.js";

export type IssuedToken = { token_id: string; token: string; created_at: number };
export type TokenInfo = { token_id: string; created_at: number; last_used_at: number | null };

/**
 * Tokens issued through the admin API for this hub's device. Only the SHA-256 of a token is
 * stored; the token itself is returned once, when issued. Tokens are 32 random bytes, so a plain
 * hash (no salt, no slow KDF) is enough: there is nothing to guess.
 */
export class DeviceTokens {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      "CREATE TABLE IF NOT EXISTS token (token_id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, last_used_at INTEGER)",
    );
  }

  async issue(now: number): Promise<IssuedToken> {
    const token_id = `tok_${randomHex(8)}`;
    const token = `edl_${randomBase64url(32)}`;
    this.sql.exec(
      "INSERT INTO token (token_id, hash, created_at) VALUES (?, ?, ?)",
      token_id,
      await sha256Hex(token),
      now,
    );
    return { token_id, token, created_at: now };
  }

  /** The token id whose hash this is, or null. Marks it used. */
  match(hash: string, now: number): string | null {
    const row = this.sql.exec<{ token_id: string }>("SELECT token_id FROM token WHERE hash = ?", hash).toArray()[0];
    if (!row) return null;
    this.sql.exec("UPDATE token SET last_used_at = ? WHERE token_id = ?", now, row.token_id);
    return row.token_id;
  }

  revoke(tokenId: string): boolean {
    return this.sql.exec("DELETE FROM token WHERE token_id = ?", tokenId).rowsWritten > 0;
  }

  list(): TokenInfo[] {
    return this.sql
      .exec<TokenInfo>("SELECT token_id, created_at, last_used_at FROM token ORDER BY created_at")
      .toArray();
  }
}
