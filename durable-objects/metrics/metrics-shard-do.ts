import { DurableObject } from "cloudflare:workers";
import type { RunRecord } from "./aggregate.js";

export type ConversationIndexRow = {
  conversation_id: string;
  agent_id: string;
  status: string;
  created_at: number;
  updated_at: number;
  last_text: string | null;
  /** the principal that started it (runtime/access.ts); null for conversations indexed before owners were */
  owner?: string | null;
};

export type ConversationQuery = { limit?: number; agent_id?: string; status?: string; owner?: string };

/** Rows older than this are dropped when new ones arrive. */
const RETENTION_MS = 7 * 24 * 3600 * 1000;
/** Reads return at most this many of the newest rows per shard. */
const MAX_ROWS_READ = 20_000;

/**
 * One of N shards holding finished runs. Conversations write to the shard their id hashes to;
 * a metrics read merges all shards. Writes are one row per finished message, so even a busy
 * deployment spreads thinly across shards.
 */
export class MetricsShardDO extends DurableObject<unknown> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS runs (
      key TEXT PRIMARY KEY, at INTEGER NOT NULL, json TEXT NOT NULL)`);
    this.sql.exec("CREATE INDEX IF NOT EXISTS runs_at ON runs(at)");
    this.sql.exec(`CREATE TABLE IF NOT EXISTS conversations (
      conversation_id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, status TEXT NOT NULL,
      created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, last_text TEXT, owner TEXT)`);
    this.sql.exec("CREATE INDEX IF NOT EXISTS conversations_updated ON conversations(updated_at)");
    this.sql.exec("CREATE INDEX IF NOT EXISTS conversations_owner ON conversations(owner, updated_at)");
  }

  /** The conversation index: one row per conversation, updated when a message starts or ends. */
  async upsertConversation(row: ConversationIndexRow): Promise<void> {
    this.sql.exec(
      `INSERT INTO conversations (conversation_id, agent_id, status, created_at, updated_at, last_text, owner) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(conversation_id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at,
         last_text = COALESCE(excluded.last_text, conversations.last_text),
         owner = COALESCE(conversations.owner, excluded.owner)
       WHERE excluded.updated_at >= conversations.updated_at`,
      row.conversation_id,
      row.agent_id,
      row.status,
      row.updated_at,
      row.updated_at,
      row.last_text ?? null,
      row.owner ?? null,
    );
  }

  /** Newest first; `owner`: only that principal's (a scoped principal's list). */
  async conversations(q: ConversationQuery = {}): Promise<ConversationIndexRow[]> {
    const limit = q.limit ?? 100;
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (q.agent_id) {
      where.push("agent_id = ?");
      args.push(q.agent_id);
    }
    if (q.status) {
      where.push("status = ?");
      args.push(q.status);
    }
    if (q.owner !== undefined) {
      where.push("owner = ?");
      args.push(q.owner);
    }
    return this.sql
      .exec<ConversationIndexRow>(
        `SELECT conversation_id, agent_id, status, created_at, updated_at, last_text, owner FROM conversations ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY updated_at DESC LIMIT ?`,
        ...args,
        Math.min(limit, 1000),
      )
      .toArray();
  }

  /** Idempotent by key (the message id), so a re-driven effect is not counted twice. */
  async record(key: string, run: RunRecord): Promise<void> {
    this.sql.exec(
      "INSERT INTO runs (key, at, json) VALUES (?, ?, ?) ON CONFLICT(key) DO NOTHING",
      key,
      run.at,
      JSON.stringify(run),
    );
    this.sql.exec("DELETE FROM runs WHERE at < ?", Date.now() - RETENTION_MS);
  }

  /** A message's end: its index row and its run in one request (and one commit), not two. */
  async recordEnd(row: ConversationIndexRow, key: string, run: RunRecord): Promise<void> {
    await this.upsertConversation(row);
    await this.record(key, run);
  }

  async runs(since = 0): Promise<RunRecord[]> {
    return this.sql
      .exec<{ json: string }>("SELECT json FROM runs WHERE at >= ? ORDER BY at DESC LIMIT ?", since, MAX_ROWS_READ)
      .toArray()
      .map((r) => JSON.parse(r.json) as RunRecord);
  }
}
