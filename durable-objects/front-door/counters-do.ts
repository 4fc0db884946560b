import { DurableObject } from "cloudflare:workers";

/**
 * Named counters an admin can read (the front door's rejections). One instance ("rejections");
 * it is written only when something is refused, off the request path (`waitUntil`).
 */
export class CountersDO extends DurableObject<unknown> {
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS counter (name TEXT PRIMARY KEY, n INTEGER NOT NULL, last_at INTEGER NOT NULL)",
    );
  }

  async increment(name: string, by = 1): Promise<void> {
    this.ctx.storage.sql.exec(
      "INSERT INTO counter (name, n, last_at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n, last_at = excluded.last_at",
      name.slice(0, 200),
      by,
      Date.now(),
    );
  }

  async read(): Promise<Record<string, number>> {
    const rows = this.ctx.storage.sql
      .exec<{ name: string; n: number }>("SELECT name, n FROM counter ORDER BY name")
      .toArray();
    return Object.fromEntries(rows.map((r) => [r.name, r.n]));
  }
}
