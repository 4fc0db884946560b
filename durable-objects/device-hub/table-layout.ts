/**
 * Table layouts in a hub's SQLite: the ledger and the audit log are kept in tables without rowids,
 * keyed by what they are looked up by, so a row costs one b-tree write and no separate key index.
 * A table an earlier version made with a rowid is rebuilt once, its rows copied. Used by Ledger and
 * AuditLog.
 */

/** Creates `table` with `create` (given the name to create), or rebuilds it in that layout. */
export function ensureWithoutRowid(sql: SqlStorage, table: string, create: (name: string) => string): void {
  const existing = sql
    .exec<{ sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", table)
    .toArray()[0];
  if (!existing) {
    sql.exec(create(table));
    return;
  }
  if (/WITHOUT\s+ROWID\s*$/i.test(existing.sql)) return;
  const old = `${table}_with_rowid`;
  // Its indexes go with it; the caller makes the ones the new layout has.
  sql.exec(`ALTER TABLE ${table} RENAME TO ${old}`);
  sql.exec(create(table));
  const kept = new Set(columns(sql, old));
  const shared = columns(sql, table)
    .filter((c) => kept.has(c))
    .join(", ");
  sql.exec(`INSERT INTO ${table} (${shared}) SELECT ${shared} FROM ${old}`);
  sql.exec(`DROP TABLE ${old}`);
}

function columns(sql: SqlStorage, table: string): string[] {
  return sql
    .exec<{ name: string }>(`PRAGMA table_info(${table})`)
    .toArray()
    .map((c) => c.name);
}
