// The Node type check (tsconfig.json) has no Workers types, yet the unit tests load stores that take a Durable
// Object's `SqlStorage` (test/helpers/node-sql-storage.ts gives them one over node:sqlite). These are the parts
// of @cloudflare/workers-types' declarations those stores use; tsconfig.worker.json, which has the real ones,
// does not include this folder.
type SqlStorageValue = ArrayBuffer | string | number | null;

interface SqlStorageCursor<T extends Record<string, SqlStorageValue>> {
  next(): IteratorResult<T, undefined>;
  toArray(): T[];
  one(): T;
  raw<U extends SqlStorageValue[]>(): IterableIterator<U>;
  columnNames: string[];
  readonly rowsRead: number;
  readonly rowsWritten: number;
  [Symbol.iterator](): IterableIterator<T>;
}

interface SqlStorage {
  exec<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: unknown[]): SqlStorageCursor<T>;
  readonly databaseSize: number;
}

// Node 24's SQLite, which @types/node 20 does not describe: only what node-sql-storage.ts calls.
declare module "node:sqlite" {
  export class StatementSync {
    all(...params: unknown[]): Record<string, unknown>[];
    run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
    columns(): { name: string }[];
  }
  export class DatabaseSync {
    constructor(path: string);
    prepare(sql: string): StatementSync;
    close(): void;
  }
}
