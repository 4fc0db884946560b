import { DurableObject } from "cloudflare:workers";
import { KEY_SCOPES, type KeyScope } from "@edgeloop/protocol/api-keys";
import type { ChannelAuditEntry, ChannelGrant, ChannelPlatform, PendingPairing } from "@edgeloop/protocol/channels";
import { normalizePairingCode } from "@edgeloop/protocol/pairing";
import { log } from "../../../runtime/log.js";
import { newPairingCode } from "../../pairing/pairing-code.js";
import { RESEND_CODE_MS } from "./pairing-code.js";

/** A pairing code is good for this long; the user gets a new one after. */
const PAIRING_TTL_MS = 3600_000;
/** Recent refusals kept for the status view. */
const AUDIT_KEPT = 200;

/** What a chat user may reach when nothing narrower is asked for: messages, and their own conversations. */
export const DEFAULT_CHAT_SCOPES: KeyScope[] = ["messages", "conversations:read", "conversations:write"];

export type NewGrant = Omit<ChannelGrant, "created_at" | "scopes" | "name"> & { scopes?: KeyScope[]; name?: string };

type GrantRow = Omit<ChannelGrant, "agents" | "pools" | "scopes"> & { agents: string; pools: string; scopes: string };

/**
 * The deployment's chat access (one object, `"global"`): grants binding chat users and group
 * chats to devices, pairing codes waiting for an admin, and an audit of refusals. Nobody reaches
 * a device without a grant (docs/architecture.md#chat-access). Chat threads read the grants
 * through each isolate's copy, not per message (grants-in-force.ts).
 */
export class ChannelDirectoryDO extends DurableObject {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS grants (platform TEXT NOT NULL, subject TEXT NOT NULL, name TEXT NOT NULL,
      agents TEXT NOT NULL, pools TEXT NOT NULL, scopes TEXT NOT NULL, target TEXT, created_at INTEGER NOT NULL,
      PRIMARY KEY (platform, subject))`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS pairings (code TEXT PRIMARY KEY, platform TEXT NOT NULL,
      user_id TEXT NOT NULL, user_name TEXT NOT NULL, chat_id TEXT NOT NULL, thread_id TEXT,
      created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, noticed_at INTEGER NOT NULL,
      UNIQUE (platform, user_id))`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS audit (id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL,
      platform TEXT NOT NULL, user_id TEXT NOT NULL, user_name TEXT NOT NULL, chat_id TEXT NOT NULL,
      action TEXT NOT NULL, detail TEXT NOT NULL)`);
  }

  async putGrant(grant: NewGrant, now = Date.now()): Promise<ChannelGrant> {
    const stored: ChannelGrant = {
      ...grant,
      name: grant.name ?? grant.subject,
      scopes: grant.scopes ?? DEFAULT_CHAT_SCOPES,
      created_at: now,
    };
    this.sql.exec(
      `INSERT OR REPLACE INTO grants (platform, subject, name, agents, pools, scopes, target, created_at)
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

  async deleteGrant(platform: ChannelPlatform, subject: string): Promise<boolean> {
    return this.sql.exec("DELETE FROM grants WHERE platform = ? AND subject = ?", platform, subject).rowsWritten > 0;
  }

  async grants(): Promise<ChannelGrant[]> {
    return this.sql.exec<GrantRow>("SELECT * FROM grants ORDER BY created_at DESC").toArray().map(grantView);
  }

  /**
   * The code an unknown user is given: the one still waiting for them, else a new one. `notify`
   * says whether to tell them (a new code, or the last notice is old), so a user who keeps writing
   * is not answered at every message.
   */
  async pairingFor(
    platform: ChannelPlatform,
    user: { id: string; name: string },
    chat: { chatId: string; threadId?: string },
    now = Date.now(),
  ): Promise<{ code: string; notify: boolean }> {
    this.sql.exec("DELETE FROM pairings WHERE expires_at <= ?", now);
    const waiting = this.sql
      .exec<{ code: string; noticed_at: number }>(
        "SELECT code, noticed_at FROM pairings WHERE platform = ? AND user_id = ?",
        platform,
        user.id,
      )
      .toArray()[0];
    if (waiting) {
      const notify = now - waiting.noticed_at >= RESEND_CODE_MS;
      if (notify) this.sql.exec("UPDATE pairings SET noticed_at = ? WHERE code = ?", now, waiting.code);
      return { code: waiting.code, notify };
    }
    const code = newPairingCode();
    this.sql.exec(
      `INSERT INTO pairings (code, platform, user_id, user_name, chat_id, thread_id, created_at, expires_at, noticed_at)
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

  async pairings(now = Date.now()): Promise<PendingPairing[]> {
    return this.sql
      .exec<PendingPairing>(
        `SELECT code, platform, user_id, user_name, chat_id, thread_id, created_at, expires_at FROM pairings
         WHERE expires_at > ? ORDER BY created_at`,
        now,
      )
      .toArray();
  }

  /** Approve a code: the user gets the grant, the code is used up. Null: no such code (or expired). */
  async approvePairing(
    code: string,
    grant: Pick<NewGrant, "agents" | "pools" | "scopes" | "target">,
    now = Date.now(),
  ): Promise<{ pairing: PendingPairing; grant: ChannelGrant } | null> {
    const asTyped = normalizePairingCode(code);
    const pairing = (await this.pairings(now)).find((p) => p.code === asTyped);
    if (!pairing) return null;
    this.sql.exec("DELETE FROM pairings WHERE code = ?", pairing.code);
    const stored = await this.putGrant(
      { ...grant, platform: pairing.platform, subject: `user:${pairing.user_id}`, name: pairing.user_name },
      now,
    );
    return { pairing, grant: stored };
  }

  async audit(entry: Omit<ChannelAuditEntry, "at">, now = Date.now()): Promise<void> {
    this.sql.exec(
      "INSERT INTO audit (at, platform, user_id, user_name, chat_id, action, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
      now,
      entry.platform,
      entry.user_id,
      entry.user_name,
      entry.chat_id,
      entry.action,
      entry.detail,
    );
    this.sql.exec("DELETE FROM audit WHERE id <= (SELECT MAX(id) FROM audit) - ?", AUDIT_KEPT);
    log("warn", "channel refusal", { ...entry });
  }

  async recentAudit(limit = 50): Promise<ChannelAuditEntry[]> {
    return this.sql
      .exec<ChannelAuditEntry>(
        "SELECT at, platform, user_id, user_name, chat_id, action, detail FROM audit ORDER BY id DESC LIMIT ?",
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
