import { DatabaseSync } from "node:sqlite";

/**
 * A Durable Object's `SqlStorage` over Node's own SQLite (in memory), so stores that keep their rows in a
 * Durable Object run in the unit tests and the mutation run. Both are SQLite; this wraps the calls the
 * stores make: `exec` of one statement with its bindings, and the cursor's rows and `rowsWritten`.
 */
export function nodeSqlStorage(): SqlStorage {
  const db = new DatabaseSync(":memory:");
  return {
    exec<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: unknown[]): SqlStorageCursor<T> {
      const statement = db.prepare(query);
      let rows: T[] = [];
      let rowsWritten = 0;
      if (statement.columns().length > 0) rows = statement.all(...bindings) as T[];
      else rowsWritten = Number(statement.run(...bindings).changes);
      // A write with RETURNING has columns too: count its rows as written.
      if (rows.length > 0 && !/^\s*select\b/i.test(query)) rowsWritten = rows.length;
      return cursor(rows, rowsWritten);
    },
    get databaseSize(): number {
      return 0;
    },
  };
}

function cursor<T extends Record<string, SqlStorageValue>>(rows: T[], rowsWritten: number): SqlStorageCursor<T> {
  const it = rows[Symbol.iterator]();
  return {
    next: () => it.next() as IteratorResult<T, undefined>,
    toArray: () => [...it],
    one: () => {
      const all = [...it];
      if (all.length !== 1) throw new Error(`Expected exactly one result from SQL query, got ${all.length}`);
      return all[0]!;
    },
    raw: <U extends SqlStorageValue[]>() => [...it].map((r) => Object.values(r) as U)[Symbol.iterator](),
    columnNames: rows[0] ? Object.keys(rows[0]) : [],
    rowsRead: rows.length,
    rowsWritten,
    [Symbol.iterator]: () => it,
  };
}
