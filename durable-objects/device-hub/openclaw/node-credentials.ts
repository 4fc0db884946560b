import { sha256Hex } from "../../../runtime/digest.js";
import { randomBase64url } from "../../../runtime/random-token.js";

/**
 * How an OpenClaw node earns its place on this hub (docs/openclaw-nodes.md#onboarding), kept in the
 * hub's own SQLite: setup secrets an admin minted (hash only; one use; an expiry), the device key
 * pinned to this agent id, and device keys waiting for an admin's approval. Tokens the node
 * brings from elsewhere are never stored: only what edgeloop issued is looked up, by hash.
 */

export type PendingNode = {
  request_id: string;
  device_id: string;
  public_key: string;
  display_name: string | null;
  platform: string | null;
  commands: string[];
  created_at: number;
  expires_at: number;
  approved_at: number | null;
};

export type PinnedNode = { device_id: string; public_key: string; paired_at: number; paired_by: string };

/** How long a device key's request waits for approval; the node asks again while it waits. */
export const PENDING_TTL_MS = 60 * 60_000;
/** Requests kept at most: a node retries with one key, so more than this is someone knocking. */
const MAX_PENDING = 20;
/** Unambiguous letters and digits for a code people read aloud (no 0/O, 1/I/L). */
const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

function shortCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  const chars = Array.from(bytes, (b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join("");
  return `${chars.slice(0, 4)}-${chars.slice(4)}`;
}

type PendingRow = Omit<PendingNode, "commands"> & { commands: string };

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
      "CREATE TABLE IF NOT EXISTS openclaw_pending (request_id TEXT PRIMARY KEY, device_id TEXT NOT NULL UNIQUE, public_key TEXT NOT NULL, display_name TEXT, platform TEXT, commands TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, approved_at INTEGER)",
    );
  }

  /**
   * A setup secret: 16 random bytes, so 22 base64url characters, the length OpenClaw's join
   * codes have. The same secret is the setup code's bootstrap token and the join URL's code.
   */
  async mintSetup(now: number, ttlMs: number): Promise<{ secret: string; expires_at: number }> {
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

  saveCommands(commands: string[]): void {
    this.sql.exec("INSERT OR REPLACE INTO openclaw_state (k, v) VALUES ('commands', ?)", JSON.stringify(commands));
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
    this.sql.exec("DELETE FROM openclaw_pending WHERE device_id = ?", deviceId);
  }

  /** The request this key is waiting on, made (or kept) now; null when too many already wait. */
  requestApproval(
    p: Omit<PendingNode, "request_id" | "created_at" | "expires_at" | "approved_at">,
    now: number,
  ): PendingNode | null {
    this.sql.exec("DELETE FROM openclaw_pending WHERE expires_at < ?", now);
    const known = this.pendingFor(p.device_id);
    if (known) return known;
    const count = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM openclaw_pending").one().n;
    if (count >= MAX_PENDING) return null;
    const row: PendingNode = {
      ...p,
      request_id: shortCode(),
      created_at: now,
      expires_at: now + PENDING_TTL_MS,
      approved_at: null,
    };
    this.sql.exec(
      "INSERT INTO openclaw_pending (request_id, device_id, public_key, display_name, platform, commands, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      row.request_id,
      row.device_id,
      row.public_key,
      row.display_name,
      row.platform,
      JSON.stringify(row.commands),
      row.created_at,
      row.expires_at,
    );
    return row;
  }

  pendingFor(deviceId: string): PendingNode | null {
    const row = this.sql.exec<PendingRow>("SELECT * FROM openclaw_pending WHERE device_id = ?", deviceId).toArray()[0];
    return row ? { ...row, commands: JSON.parse(row.commands) as string[] } : null;
  }

  listPending(now: number): PendingNode[] {
    return this.sql
      .exec<PendingRow>("SELECT * FROM openclaw_pending WHERE expires_at > ? ORDER BY created_at", now)
      .toArray()
      .map((row) => ({ ...row, commands: JSON.parse(row.commands) as string[] }));
  }

  /** Approve (the node is let in at its next connect) or deny (the request is dropped); false if unknown. */
  decide(requestId: string, approve: boolean, now: number): boolean {
    if (!approve) return this.sql.exec("DELETE FROM openclaw_pending WHERE request_id = ?", requestId).rowsWritten > 0;
    // Approval gives the node another hour to come back for its token.
    return (
      this.sql.exec(
        "UPDATE openclaw_pending SET approved_at = ?, expires_at = ? WHERE request_id = ? AND expires_at > ?",
        now,
        now + PENDING_TTL_MS,
        requestId,
        now,
      ).rowsWritten > 0
    );
  }
}
