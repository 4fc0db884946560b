import { DurableObject } from "cloudflare:workers";
import { type Bucket, type BucketLimits, take, takeAdmission } from "./token-bucket.js";

export type Admission =
  | { ok: true }
  | { ok: false; reason: "rate" | "open_conversations"; retry_after_s: number; detail: string };

export type AgentAdmission = BucketLimits & { conversationId: string; maxOpen: number; idleMs: number };

/**
 * One per rate-limited subject (`sender:<name>` or `agent:<id>`): a token bucket, and for agents
 * the set of recently active conversations (the open-conversation limit). Limits come with each
 * call, so a config change applies at once without touching stored state.
 */
export class LimiterDO extends DurableObject<unknown> {
  /**
   * The open conversations and the bucket as stored, read once per instance: this object is their
   * only writer, so a message reads no row (counting the open conversations read all of them).
   */
  private open: Map<string, number> | null = null;
  private bucket: Bucket | null | undefined = undefined;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS bucket (k INTEGER PRIMARY KEY CHECK (k = 1), tokens REAL NOT NULL, updated_at INTEGER NOT NULL)",
    );
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS open_conversation (id TEXT PRIMARY KEY, last_at INTEGER NOT NULL)",
    );
  }

  /** Take one token. */
  async admit(limits: BucketLimits): Promise<Admission> {
    return this.takeToken(limits, Date.now());
  }

  /**
   * A message for this agent: a new conversation counts against `maxOpen` (conversations with a
   * message in the last `idleMs`); then one token. Nothing is recorded when refused.
   */
  async admitAgent(req: AgentAdmission): Promise<Admission> {
    const now = Date.now();
    const sql = this.ctx.storage.sql;
    const open = this.openConversations();
    const idleBefore = now - req.idleMs;
    let idle = false;
    for (const [id, at] of open) {
      if (at >= idleBefore) continue;
      open.delete(id);
      idle = true;
    }
    if (idle) sql.exec("DELETE FROM open_conversation WHERE last_at < ?", idleBefore);
    if (!open.has(req.conversationId) && open.size >= req.maxOpen) {
      const oldest = open.size > 0 ? Math.min(...open.values()) : now;
      const wait = Math.max(1, Math.ceil((oldest + req.idleMs - now) / 1000));
      return {
        ok: false,
        reason: "open_conversations",
        retry_after_s: wait,
        detail: `agent has ${open.size} open conversations (limit ${req.maxOpen})`,
      };
    }
    const token = this.takeToken(req, now);
    if (!token.ok) return token;
    sql.exec(
      "INSERT INTO open_conversation (id, last_at) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET last_at = excluded.last_at",
      req.conversationId,
      now,
    );
    open.set(req.conversationId, now);
    return { ok: true };
  }

  private openConversations(): Map<string, number> {
    this.open ??= new Map(
      this.ctx.storage.sql
        .exec<{ id: string; last_at: number }>("SELECT id, last_at FROM open_conversation")
        .toArray()
        .map((r) => [r.id, r.last_at]),
    );
    return this.open;
  }

  private takeToken(limits: BucketLimits, now: number): Admission {
    const sql = this.ctx.storage.sql;
    if (this.bucket === undefined)
      this.bucket = sql.exec<Bucket>("SELECT tokens, updated_at FROM bucket WHERE k = 1").toArray()[0] ?? null;
    const result = take(this.bucket, limits, now);
    sql.exec(
      "INSERT INTO bucket (k, tokens, updated_at) VALUES (1, ?, ?) ON CONFLICT(k) DO UPDATE SET tokens = excluded.tokens, updated_at = excluded.updated_at",
      result.bucket.tokens,
      result.bucket.updated_at,
    );
    this.bucket = { tokens: result.bucket.tokens, updated_at: result.bucket.updated_at };
    return takeAdmission(result, limits);
  }
}
