import { KEY_SCOPES, type KeyScope } from "@edgeloop/protocol/api-keys";
import type { ChannelAuditEntry, ChannelGrant, ChannelPlatform, PendingPairing } from "@edgeloop/protocol/channels";
import { normalizePairingCode } from "@edgeloop/protocol/pairing";
import { log } from "../../runtime/log.js";
import { DEFAULT_CHAT_SCOPES, RESEND_CODE_MS } from "./chat-access-rules.js";
import { newPairingCode } from "./pairing-code.js";

/** A pairing code is good for this long; the user gets a new one after. */
const PAIRING_TTL_MS = 3600_000;
/** Recent refusals kept for the status view. */
const AUDIT_KEPT = 200;

export type NewGrant = Omit<ChannelGrant, "created_at" | "scopes" | "name"> & { scopes?: KeyScope[]; name?: string };

type GrantRow = Omit<ChannelGrant, "agents" | "pools" | "scopes"> & { agents: string; pools: string; scopes: string };

/**
 * The deployment's chat access, in the deployment object's SQLite: grants binding chat users and
 * group chats to devices, pairing codes waiting for an admin, and an audit of refusals. Nobody
 * reaches a device without a grant (docs/architecture.md#chat-access). Chat threads read the grants
 * through each isolate's trusted copy, not per message (in-force.ts).
 */
export class ChatAccessStore {
  constructor(private readonly sql: SqlStorage) {
    this.sql.exec(`CREATE TABLE IF NOT EXISTS chat_grants (platform TEXT NOT NULL, subject TEXT NOT NULL, name TEXT NOT NULL,
      agents TEXT NOT NULL, pools TEXT NOT NULL, scopes TEXT NOT NULL, target TEXT, created_at INTEGER NOT NULL,
      PRIMARY KEY (platform, subject))`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS chat_pairings (code TEXT PRIMARY KEY, platform TEXT NOT NULL,
      user_id TEXT NOT NULL, user_name TEXT NOT NULL, chat_id TEXT NOT NULL, thread_id TEXT,
      created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, noticed_at INTEGER NOT NULL,
      UNIQUE (platform, user_id))`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS chat_audit (id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL,
      platform TEXT NOT NULL, user_id TEXT NOT NULL, user_name TEXT NOT NULL, chat_id TEXT NOT NULL,
      action TEXT NOT NULL, detail TEXT NOT NULL)`);
  }

  putGrant(grant: NewGrant, now = Date.now()): ChannelGrant {
    const stored: ChannelGrant = {
      ...grant,
      name: grant.name ?? grant.subject,
      scopes: grant.scopes ?? DEFAULT_CHAT_SCOPES,
      created_at: now,
    };
    this.sql.exec(
      `INSERT OR REPLACE INTO chat_grants (platform, subject, name, agents, pools, scopes, target, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      stored.platform,
      stored.subject,
      stored.name,
      JSON.stringify(stored.agents),
      JSON.stringify(stored.pools),
      JSON.stringify(stored.scopes),
      stored.target,
      now,
    );
    log("info", "channel grant stored", { platform: stored.platform, subject: stored.subject, agents: stored.agents });
    return stored;
  }

  deleteGrant(platform: ChannelPlatform, subject: string): boolean {
    return (
      this.sql.exec("DELETE FROM chat_grants WHERE platform = ? AND subject = ?", platform, subject).rowsWritten > 0
    );
  }

  grants(): ChannelGrant[] {
    return this.sql.exec<GrantRow>("SELECT * FROM chat_grants ORDER BY created_at DESC").toArray().map(grantView);
  }

  /**
   * The code an unknown user is given: the one still waiting for them, else a new one. `notify`
   * says whether to tell them (a new code, or the last notice is old), so a user who keeps writing
   * is not answered at every message.
   */
  pairingFor(
    platform: ChannelPlatform,
    user: { id: string; name: string },
    chat: { chatId: string; threadId?: string },
    now = Date.now(),
  ): { code: string; notify: boolean } {
    this.sql.exec("DELETE FROM chat_pairings WHERE expires_at <= ?", now);
    const waiting = this.sql
      .exec<{ code: string; noticed_at: number }>(
        "SELECT code, noticed_at FROM chat_pairings WHERE platform = ? AND user_id = ?",
        platform,
        user.id,
      )
      .toArray()[0];
    if (waiting) {
      const notify = now - waiting.noticed_at >= RESEND_CODE_MS;
      if (notify) this.sql.exec("UPDATE chat_pairings SET noticed_at = ? WHERE code = ?", now, waiting.code);
      return { code: waiting.code, notify };
    }
    const code = newPairingCode();
    this.sql.exec(
      `INSERT INTO chat_pairings (code, platform, user_id, user_name, chat_id, thread_id, created_at, expires_at, noticed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      code,
      platform,
      user.id,
      user.name,
      chat.chatId,
      chat.threadId ?? null,
      now,
      now + PAIRING_TTL_MS,
      now,
    );
    log("info", "channel pairing code issued", { platform, user_id: user.id });
    return { code, notify: true };
  }

  pairings(now = Date.now()): PendingPairing[] {
    return this.sql
      .exec<PendingPairing>(
        `SELECT code, platform, user_id, user_name, chat_id, thread_id, created_at, expires_at FROM chat_pairings
         WHERE expires_at > ? ORDER BY created_at`,
        now,
      )
      .toArray();
  }

  /** Approve a code: the user gets the grant, the code is used up. Null: no such code (or expired). */
  approvePairing(
    code: string,
    grant: Pick<NewGrant, "agents" | "pools" | "scopes" | "target">,
    now = Date.now(),
  ): { pairing: PendingPairing; grant: ChannelGrant } | null {
    const asTyped = normalizePairingCode(code);
    const pairing = this.pairings(now).find((p) => p.code === asTyped);
    if (!pairing) return null;
    this.sql.exec("DELETE FROM chat_pairings WHERE code = ?", pairing.code);
    const stored = this.putGrant(
      { ...grant, platform: pairing.platform, subject: `user:${pairing.user_id}`, name: pairing.user_name },
      now,
    );
    return { pairing, grant: stored };
  }

  audit(entry: Omit<ChannelAuditEntry, "at">, now = Date.now()): void {
    this.sql.exec(
      "INSERT INTO chat_audit (at, platform, user_id, user_name, chat_id, action, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
      now,
      entry.platform,
      entry.user_id,
      entry.user_name,
      entry.chat_id,
      entry.action,
      entry.detail,
    );
    this.sql.exec("DELETE FROM chat_audit WHERE id <= (SELECT MAX(id) FROM chat_audit) - ?", AUDIT_KEPT);
    log("warn", "channel refusal", { ...entry });
  }

  recentAudit(limit = 50): ChannelAuditEntry[] {
    return this.sql
      .exec<ChannelAuditEntry>(
        "SELECT at, platform, user_id, user_name, chat_id, action, detail FROM chat_audit ORDER BY id DESC LIMIT ?",
        limit,
      )
      .toArray();
  }
}

function grantView(row: GrantRow): ChannelGrant {
  const scopes = JSON.parse(row.scopes) as string[];
  return {
    ...row,
    agents: JSON.parse(row.agents) as string[],
    pools: JSON.parse(row.pools) as string[],
    scopes: scopes.filter((s): s is KeyScope => (KEY_SCOPES as readonly string[]).includes(s)),
  };
}
