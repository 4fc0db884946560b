import { DurableObject } from "cloudflare:workers";
import {
  type BeginResult,
  beginWith,
  forgetAt,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyEntry,
  type StoredResponse,
} from "./idempotency-rules.js";

export type { BeginResult, StoredResponse } from "./idempotency-rules.js";

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
    const answer = beginWith(this.row(), fingerprint, now);
    if (answer.state !== "new") return answer;
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
    const at = forgetAt(this.row(), Date.now());
    if (at !== null) {
      await this.ctx.storage.setAlarm(at);
      return;
    }
    await this.ctx.storage.deleteAll();
  }

  private row(): IdempotencyEntry | null {
    return this.ctx.storage.sql.exec<IdempotencyEntry>("SELECT * FROM entry WHERE k = 1").toArray()[0] ?? null;
  }
}
