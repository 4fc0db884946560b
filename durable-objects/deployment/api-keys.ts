import { type ApiKeyView, type IssuedKey, KEY_PREFIX, type KeyScope } from "@edgeloop/protocol/api-keys";
import { sha256Hex } from "../../runtime/digest.js";
import { log } from "../../runtime/log.js";
import { randomBase64url, randomHex } from "../../runtime/random-token.js";

/** A key as the admin asked for it (validated by the route; `scopes` filled in with the default). */
export type NewKey = { name: string; agents: string[]; pools: string[]; scopes: KeyScope[] };

/** `last_used_at` is written at most this often per key, so a busy key costs no write per request. */
const TOUCH_WRITE_MS = 60_000;
/** Revoked keys stay listed this long (what existed, and when it stopped), then go. */
const KEEP_REVOKED_MS = 90 * 86_400_000;

type Row = {
  key_id: string;
  name: string;
  hash: string;
  agents: string;
  pools: string;
  scopes: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
};

/**
 * The deployment's scoped API keys, in the deployment object's SQLite. A key is 32 random bytes,
 * returned once when issued; only its SHA-256 is stored (nothing to guess, so no salt or slow hash
 * is needed), as for device tokens. Requests made with a key are checked here (`verify`) through
 * each worker isolate's trusted copy (in-force.ts; docs/architecture.md#trusted-copies). The active
 * keys are held in memory by hash: the check is a map lookup. If key traffic ever outgrew one
 * object, keys would shard by key id (carried in the key) with this store kept for the admin's list.
 */
export class ApiKeyStore {
  private readonly active = new Map<string, ApiKeyView>();

  constructor(private readonly sql: SqlStorage) {
    this.sql.exec(`CREATE TABLE IF NOT EXISTS keys (
      key_id TEXT PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, agents TEXT NOT NULL,
      pools TEXT NOT NULL, scopes TEXT NOT NULL, created_at INTEGER NOT NULL, last_used_at INTEGER,
      revoked_at INTEGER)`);
    for (const row of this.sql.exec<Row>("SELECT * FROM keys WHERE revoked_at IS NULL"))
      this.active.set(row.hash, view(row));
  }

  async create(input: NewKey, now = Date.now()): Promise<IssuedKey> {
    this.sql.exec("DELETE FROM keys WHERE revoked_at < ?", now - KEEP_REVOKED_MS);
    const key_id = `key_${randomHex(8)}`;
    const key = `${KEY_PREFIX}${randomBase64url(32)}`;
    const hash = await sha256Hex(key);
    this.sql.exec(
      `INSERT INTO keys (key_id, name, hash, agents, pools, scopes, created_at, last_used_at, revoked_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL)`,
      key_id,
      input.name,
      hash,
      JSON.stringify(input.agents),
      JSON.stringify(input.pools),
      JSON.stringify(input.scopes),
      now,
    );
    const issued: ApiKeyView = { key_id, ...input, created_at: now, last_used_at: null, revoked_at: null };
    this.active.set(hash, issued);
    log("info", "api key issued", { key_id, name: input.name, agents: input.agents, pools: input.pools });
    return { ...issued, key };
  }

  /** Newest first, revoked ones included (with `revoked_at`). */
  list(): ApiKeyView[] {
    return this.sql.exec<Row>("SELECT * FROM keys ORDER BY created_at DESC").toArray().map(view);
  }

  get(keyId: string): ApiKeyView | null {
    const row = this.sql.exec<Row>("SELECT * FROM keys WHERE key_id = ?", keyId).toArray()[0];
    return row ? view(row) : null;
  }

  /** The active key whose SHA-256 this is, or null (unknown or revoked). Marks it used. */
  verify(hash: string, now = Date.now()): ApiKeyView | null {
    const key = this.active.get(hash);
    if (!key) return null;
    if (key.last_used_at === null || now - key.last_used_at >= TOUCH_WRITE_MS) {
      key.last_used_at = now;
      this.sql.exec("UPDATE keys SET last_used_at = ? WHERE key_id = ?", now, key.key_id);
    }
    return key;
  }

  /** Revoked at once: the next request with the key is refused. The key stays listed as revoked. */
  revoke(keyId: string, now = Date.now()): { found: boolean; revoked: boolean } {
    const row = this.sql.exec<Row>("SELECT * FROM keys WHERE key_id = ?", keyId).toArray()[0];
    if (!row) return { found: false, revoked: false };
    if (row.revoked_at !== null) return { found: true, revoked: false };
    this.sql.exec("UPDATE keys SET revoked_at = ? WHERE key_id = ?", now, keyId);
    this.active.delete(row.hash);
    log("info", "api key revoked", { key_id: keyId, name: row.name });
    return { found: true, revoked: true };
  }
}

function view(r: Row): ApiKeyView {
  return {
    key_id: r.key_id,
    name: r.name,
    agents: JSON.parse(r.agents) as string[],
    pools: JSON.parse(r.pools) as string[],
    scopes: JSON.parse(r.scopes) as KeyScope[],
    created_at: r.created_at,
    last_used_at: r.last_used_at,
    revoked_at: r.revoked_at,
  };
}
