import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../worker/env.js";
import type { RunRecord } from "./aggregate.js";

/** Rows older than this are dropped when new ones arrive. */
const RETENTION_MS = 7 * 24 * 3600 * 1000;
/** Reads return at most this many of the newest rows per shard. */
const MAX_ROWS_READ = 20_000;

/**
 * One of N shards holding finished runs. Conversations write to the shard their id hashes to;
 * a metrics read merges all shards. Writes are one row per finished message, so even a busy
 * deployment spreads thinly across shards.
 */
export class MetricsShardDO extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS runs (
      key TEXT PRIMARY KEY, at INTEGER NOT NULL, json TEXT NOT NULL)`);
    this.sql.exec("CREATE INDEX IF NOT EXISTS runs_at ON runs(at)");
  }

  /** Idempotent by key (the message id), so a re-driven effect is not counted twice. */
  async record(key: string, run: RunRecord): Promise<void> {
    this.sql.exec("INSERT INTO runs (key, at, json) VALUES (?, ?, ?) ON CONFLICT(key) DO NOTHING", key, run.at, JSON.stringify(run));
    this.sql.exec("DELETE FROM runs WHERE at < ?", Date.now() - RETENTION_MS);
  }

  async runs(since = 0): Promise<RunRecord[]> {
    return this.sql
      .exec<{ json: string }>("SELECT json FROM runs WHERE at >= ? ORDER BY at DESC LIMIT ?", since, MAX_ROWS_READ)
      .toArray()
      .map((r) => JSON.parse(r.json) as RunRecord);
  }
}
