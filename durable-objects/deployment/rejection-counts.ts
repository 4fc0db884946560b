/**
 * How often each kind of refusal happened (`<route> <status> <title>`, `channel <platform>: …`),
 * in the deployment object's SQLite, for `GET /v1/limits`. Written only when something is
 * refused, off the request's path (`waitUntil`).
 */
export class RejectionCounts {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      "CREATE TABLE IF NOT EXISTS rejection_count (name TEXT PRIMARY KEY, n INTEGER NOT NULL, last_at INTEGER NOT NULL)",
    );
  }

  increment(name: string, by = 1, now = Date.now()): void {
    this.sql.exec(
      `INSERT INTO rejection_count (name, n, last_at) VALUES (?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET n = n + excluded.n, last_at = excluded.last_at`,
      name.slice(0, 200),
      by,
      now,
    );
  }

  read(): Record<string, number> {
    const rows = this.sql
      .exec<{ name: string; n: number }>("SELECT name, n FROM rejection_count ORDER BY name")
      .toArray();
    return Object.fromEntries(rows.map((r) => [r.name, r.n]));
  }
}
