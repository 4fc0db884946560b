/**
 * Which scoped keys carry an OAuth grant to `/mcp`, and that grant's id, so a key can follow its
 * grant when the OAuth library removes the grant by itself (worker/oauth/grant-links.ts). A table
 * of its own beside the keys (api-keys.ts) in the deployment object's SQLite: a deployment from
 * before it needs no change to `keys`.
 */
export class GrantKeyStore {
  constructor(private readonly sql: SqlStorage) {
    this.sql.exec("CREATE TABLE IF NOT EXISTS grant_keys (key_id TEXT PRIMARY KEY, grant_id TEXT NOT NULL)");
  }

  /** The key carries this grant. Links of keys that no longer exist (api-keys.ts drops old revoked ones) go. */
  link(keyId: string, grantId: string): void {
    this.sql.exec("DELETE FROM grant_keys WHERE key_id NOT IN (SELECT key_id FROM keys)");
    this.sql.exec(
      "INSERT INTO grant_keys (key_id, grant_id) VALUES (?, ?) ON CONFLICT(key_id) DO UPDATE SET grant_id = excluded.grant_id",
      keyId,
      grantId,
    );
  }

  /** The active keys that carry a grant, with the grant's id. */
  active(): { key_id: string; grant_id: string }[] {
    return this.sql
      .exec<{ key_id: string; grant_id: string }>(
        "SELECT g.key_id, g.grant_id FROM grant_keys g JOIN keys k ON k.key_id = g.key_id WHERE k.revoked_at IS NULL",
      )
      .toArray();
  }
}
