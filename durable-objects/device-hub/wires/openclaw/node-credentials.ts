import { sha256Hex } from "../../../../runtime/digest.js";
import { randomBase64url } from "../../../../runtime/random-token.js";
import type { Published } from "./gateway-frames.js";

/**
 * How an OpenClaw node earns its place on this hub (docs/openclaw-nodes.md#set-up), kept in the
 * hub's own SQLite: setup secrets an admin minted (hash only; one use; an expiry), the device key
 * pinned to this agent id, and the pairing requests device keys wait on (the claim secret
 * edgeloop issued for each). Tokens the node brings from elsewhere are never stored: only what
 * edgeloop issued is looked up, by hash.
 */

/** A pairing request this hub opened for a device key (pairing-desk.ts), and the secret it claims with. */
export type NodeClaim = { device_id: string; code: string; claim_secret: string; expires_at: number };

/** A setup secret as minted: shown once, only its hash is kept. */
export type NodeSetupSecret = { secret: string; expires_at: number };

export type PinnedNode = { device_id: string; public_key: string; paired_at: number; paired_by: string };

/** A device key an admin revoked (its token) or denied (its pairing request): refused until cleared. */
export type RevokedKey = { device_id: string; revoked_at: number; why: string };

export class NodeCredentials {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      "CREATE TABLE IF NOT EXISTS openclaw_setup (hash TEXT PRIMARY KEY, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, used_at INTEGER)",
    );
    sql.exec(
      "CREATE TABLE IF NOT EXISTS openclaw_pin (k TEXT PRIMARY KEY, device_id TEXT NOT NULL, public_key TEXT NOT NULL, paired_at INTEGER NOT NULL, paired_by TEXT NOT NULL)",
    );
    sql.exec("CREATE TABLE IF NOT EXISTS openclaw_state (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
    sql.exec(
      "CREATE TABLE IF NOT EXISTS openclaw_claim (device_id TEXT PRIMARY KEY, code TEXT NOT NULL, claim_secret TEXT NOT NULL, expires_at INTEGER NOT NULL)",
    );
    // Which key signed in with which token, so revoking a token revokes the keys that used it.
    sql.exec(
      "CREATE TABLE IF NOT EXISTS openclaw_token_key (token_id TEXT NOT NULL, device_id TEXT NOT NULL, PRIMARY KEY (token_id, device_id))",
    );
    sql.exec(
      "CREATE TABLE IF NOT EXISTS openclaw_revoked (device_id TEXT PRIMARY KEY, revoked_at INTEGER NOT NULL, why TEXT NOT NULL)",
    );
  }

  /**
   * A setup secret: 16 random bytes, so 22 base64url characters, the length OpenClaw's join
   * codes have. The same secret is the setup code's bootstrap token and the join URL's code.
   */
  async mintSetup(now: number, ttlMs: number): Promise<NodeSetupSecret> {
    const secret = randomBase64url(16);
    const expires_at = now + ttlMs;
    this.sql.exec("DELETE FROM openclaw_setup WHERE expires_at < ?", now);
    this.sql.exec(
      "INSERT INTO openclaw_setup (hash, created_at, expires_at) VALUES (?, ?, ?)",
      await sha256Hex(secret),
      now,
      expires_at,
    );
    return { secret, expires_at };
  }

  /** Whether `secret` is a live setup secret (not used, not expired); null if it is not one. */
  async setupExpiry(secret: string, now: number): Promise<number | null> {
    const row = this.sql
      .exec<{ expires_at: number }>(
        "SELECT expires_at FROM openclaw_setup WHERE hash = ? AND used_at IS NULL AND expires_at > ?",
        await sha256Hex(secret),
        now,
      )
      .toArray()[0];
    return row?.expires_at ?? null;
  }

  /** Use a setup secret up: true once, for a live one. */
  async consumeSetup(secret: string, now: number): Promise<boolean> {
    const hash = await sha256Hex(secret);
    return (
      this.sql.exec(
        "UPDATE openclaw_setup SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ?",
        now,
        hash,
        now,
      ).rowsWritten > 0
    );
  }

  /** The commands the node advertised at its last connect (its published tools run through them). */
  commands(): string[] {
    const row = this.sql.exec<{ v: string }>("SELECT v FROM openclaw_state WHERE k = 'commands'").toArray()[0];
    return row ? (JSON.parse(row.v) as string[]) : [];
  }

  /** A new sign-in: its commands, and nothing published yet (a node publishes again after every hello). */
  saveCommands(commands: string[]): void {
    this.sql.exec("INSERT OR REPLACE INTO openclaw_state (k, v) VALUES ('commands', ?)", JSON.stringify(commands));
    this.sql.exec("DELETE FROM openclaw_state WHERE k IN ('plugin_tools', 'skills')");
  }

  /** What the node published since it signed in: its tools and its skills, each replaced whole by an update. */
  published(): Published {
    const rows = this.sql
      .exec<{ k: string; v: string }>("SELECT k, v FROM openclaw_state WHERE k IN ('plugin_tools', 'skills')")
      .toArray();
    const of = (k: string) => JSON.parse(rows.find((r) => r.k === k)?.v ?? "[]");
    return { tools: of("plugin_tools"), skills: of("skills") };
  }

  savePublished(p: Partial<Published>): void {
    if (p.tools)
      this.sql.exec("INSERT OR REPLACE INTO openclaw_state (k, v) VALUES ('plugin_tools', ?)", JSON.stringify(p.tools));
    if (p.skills)
      this.sql.exec("INSERT OR REPLACE INTO openclaw_state (k, v) VALUES ('skills', ?)", JSON.stringify(p.skills));
  }

  pinned(): PinnedNode | null {
    return (
      this.sql.exec<PinnedNode>("SELECT device_id, public_key, paired_at, paired_by FROM openclaw_pin").toArray()[0] ??
      null
    );
  }

  /** This agent id's node is the one with this key from now on (a re-pair replaces the old key). */
  pin(deviceId: string, publicKey: string, now: number, pairedBy: string): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO openclaw_pin (k, device_id, public_key, paired_at, paired_by) VALUES ('node', ?, ?, ?, ?)",
      deviceId,
      publicKey,
      now,
      pairedBy,
    );
    this.dropClaim(deviceId);
  }

  /** The request a device key waits on, while it is live. */
  claimFor(deviceId: string, now: number): NodeClaim | null {
    this.sql.exec("DELETE FROM openclaw_claim WHERE expires_at <= ?", now);
    return this.sql.exec<NodeClaim>("SELECT * FROM openclaw_claim WHERE device_id = ?", deviceId).toArray()[0] ?? null;
  }

  /** Requests this hub keeps at most: a node retries with one key, so more is someone knocking. */
  claimCount(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM openclaw_claim").one().n;
  }

  saveClaim(c: NodeClaim): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO openclaw_claim (device_id, code, claim_secret, expires_at) VALUES (?, ?, ?, ?)",
      c.device_id,
      c.code,
      c.claim_secret,
      c.expires_at,
    );
  }

  dropClaim(deviceId: string): void {
    this.sql.exec("DELETE FROM openclaw_claim WHERE device_id = ?", deviceId);
  }

  /** A key signed in with this token (one row per pair, written once). */
  noteTokenUse(tokenId: string, deviceId: string): void {
    this.sql.exec("INSERT OR IGNORE INTO openclaw_token_key (token_id, device_id) VALUES (?, ?)", tokenId, deviceId);
  }

  /** A token was revoked: every key that signed in with it is revoked too; the keys. */
  revokeKeysOf(tokenId: string, now: number): string[] {
    const keys = this.sql
      .exec<{ device_id: string }>("SELECT device_id FROM openclaw_token_key WHERE token_id = ?", tokenId)
      .toArray()
      .map((r) => r.device_id);
    for (const key of keys) this.revoke(key, now, `its token ${tokenId} was revoked`);
    return keys;
  }

  /**
   * Refuse this key from now on, with no pairing request, until an admin clears it. It is no
   * longer this agent id's node: unpinned, so a new node may pair in its place.
   */
  revoke(deviceId: string, now: number, why: string): void {
    this.sql.exec(
      "INSERT OR IGNORE INTO openclaw_revoked (device_id, revoked_at, why) VALUES (?, ?, ?)",
      deviceId,
      now,
      why,
    );
    this.sql.exec("DELETE FROM openclaw_pin WHERE device_id = ?", deviceId);
    this.dropClaim(deviceId);
  }

  revoked(deviceId: string): RevokedKey | null {
    return (
      this.sql.exec<RevokedKey>("SELECT * FROM openclaw_revoked WHERE device_id = ?", deviceId).toArray()[0] ?? null
    );
  }

  revokedKeys(): RevokedKey[] {
    return this.sql.exec<RevokedKey>("SELECT * FROM openclaw_revoked ORDER BY revoked_at").toArray();
  }

  /** An admin cleared the revoked keys: each may ask to pair again (it is not let in by this). */
  clearRevoked(): RevokedKey[] {
    const cleared = this.revokedKeys();
    this.sql.exec("DELETE FROM openclaw_revoked");
    for (const key of cleared) this.sql.exec("DELETE FROM openclaw_token_key WHERE device_id = ?", key.device_id);
    return cleared;
  }
}
