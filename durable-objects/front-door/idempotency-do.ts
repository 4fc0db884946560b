import { DurableObject } from "cloudflare:workers";

/** How long a key is remembered: a repeat within this window gets the first response back. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * An `in_progress` key older than this is taken to be abandoned (the worker that held it died)
 * and may be claimed again. Claiming it while its first request is in fact still going (a slow
 * one, or one waiting with `?wait`) is harmless: a keyed message's ids derive from its key and
 * the conversation takes a message id once, so both requests post the same message and store the
 * same answer. So this only needs to outlast an ordinary request, not the longest wait: a client
 * whose request died with the runtime is not kept waiting for minutes.
 */
export const IN_PROGRESS_STALE_MS = 15 * 1000;

export type StoredResponse = { status: number; body: string; content_type: string };

export type BeginResult =
  | { state: "new" }
  | { state: "in_progress"; retry_after_s: number }
  | { state: "done"; response: StoredResponse }
  | { state: "mismatch" };

type Row = {
  state: string;
  fingerprint: string;
  status: number | null;
  body: string | null;
  content_type: string | null;
  started_at: number;
};

/**
 * One per (sender, idempotency key), from `idFromName(sender + "\n" + key)`. The key is recorded
 * as `in_progress` *before* the message is processed, so a concurrent repeat finds it and starts
 * nothing; the response is stored when the first request finishes. SQLite calls are synchronous,
 * so `begin` reads and claims in one step with no interleaving.
 */
export class IdempotencyDO extends DurableObject<unknown> {
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS entry (
      k INTEGER PRIMARY KEY CHECK (k = 1), state TEXT NOT NULL, fingerprint TEXT NOT NULL,
      status INTEGER, body TEXT, content_type TEXT, started_at INTEGER NOT NULL)`);
  }

  /** Claim the key for a request whose body hashes to `fingerprint`, or say why not. */
  async begin(fingerprint: string): Promise<BeginResult> {
    const now = Date.now();
    const row = this.row();
    if (row && now - row.started_at < IDEMPOTENCY_TTL_MS) {
      if (row.fingerprint !== fingerprint) return { state: "mismatch" };
      if (row.state === "done")
        return { state: "done", response: { status: row.status!, body: row.body!, content_type: row.content_type! } };
      if (now - row.started_at < IN_PROGRESS_STALE_MS) {
        return { state: "in_progress", retry_after_s: 1 };
      }
    }
    this.ctx.storage.sql.exec(
      `INSERT INTO entry (k, state, fingerprint, started_at) VALUES (1, 'in_progress', ?, ?)
       ON CONFLICT(k) DO UPDATE SET state = 'in_progress', fingerprint = excluded.fingerprint,
         status = NULL, body = NULL, content_type = NULL, started_at = excluded.started_at`,
      fingerprint,
      now,
    );
    await this.ctx.storage.setAlarm(now + IDEMPOTENCY_TTL_MS);
    return { state: "new" };
  }

  /** Keep the response for repeats. */
  async finish(response: StoredResponse): Promise<void> {
    this.ctx.storage.sql.exec(
      "UPDATE entry SET state = 'done', status = ?, body = ?, content_type = ? WHERE k = 1",
      response.status,
      response.body,
      response.content_type,
    );
  }

  /** The request did not start anything (rejected, rate limited, failed): forget the key. */
  async release(): Promise<void> {
    this.ctx.storage.sql.exec("DELETE FROM entry");
  }

  override async alarm(): Promise<void> {
    const row = this.row();
    if (row && Date.now() - row.started_at < IDEMPOTENCY_TTL_MS) {
      await this.ctx.storage.setAlarm(row.started_at + IDEMPOTENCY_TTL_MS);
      return;
    }
    await this.ctx.storage.deleteAll();
  }

  private row(): Row | null {
    return this.ctx.storage.sql.exec<Row>("SELECT * FROM entry WHERE k = 1").toArray()[0] ?? null;
  }
}
