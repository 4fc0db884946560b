/**
 * Every table of a conversation's SQLite, by name (the stores that read and write each are named
 * beside it). Those a plain run writes are made together with the first write; the others when
 * first written.
 */
const TABLES = {
  // conversation-store.ts: the state row and what changes once per message
  loop_kv: "CREATE TABLE IF NOT EXISTS loop_kv (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID",
  // conversation-store.ts: built-ins' data (todos, canvas), the owner, the parent link, reply targets, tracing
  builtin_kv: "CREATE TABLE IF NOT EXISTS builtin_kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)",
  // conversation-store.ts: every message id taken, so a message posted again (a retry after a crash) is taken once
  taken_messages:
    "CREATE TABLE IF NOT EXISTS taken_messages (message_id TEXT PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID",
  // step-log.ts
  steps: `CREATE TABLE IF NOT EXISTS steps (
      ev INTEGER NOT NULL, n INTEGER NOT NULL, at INTEGER NOT NULL, events TEXT, messages TEXT, calls TEXT,
      PRIMARY KEY (ev, n)) WITHOUT ROWID`,
  // message-marks.ts
  message_marks:
    "CREATE TABLE IF NOT EXISTS message_marks (m INTEGER PRIMARY KEY, ev INTEGER NOT NULL, n INTEGER NOT NULL)",
  // conversation-store.ts: every compaction so far, for GET /v1/conversations/:id (the view uses only the latest)
  compactions: "CREATE TABLE IF NOT EXISTS compactions (seq INTEGER PRIMARY KEY AUTOINCREMENT, json TEXT NOT NULL)",
  // image-store.ts
  images:
    "CREATE TABLE IF NOT EXISTS images (sha256 TEXT PRIMARY KEY, media_type TEXT NOT NULL, bytes INTEGER NOT NULL, " +
    "width INTEGER, height INTEGER, chunks INTEGER NOT NULL, at INTEGER NOT NULL) WITHOUT ROWID",
  image_chunks:
    "CREATE TABLE IF NOT EXISTS image_chunks (sha256 TEXT NOT NULL, n INTEGER NOT NULL, data BLOB NOT NULL, " +
    "PRIMARY KEY (sha256, n)) WITHOUT ROWID",
} as const;

export type TableName = keyof typeof TABLES;

/** What every run writes: made together by the conversation's first write. */
const RUN_TABLES: TableName[] = ["loop_kv", "builtin_kv", "taken_messages", "steps", "message_marks"];

/**
 * A conversation's tables, made when first written rather than when its object starts. Every
 * message is a new conversation unless it names one, and making the eight tables when the object
 * started cost schema writes and a commit of their own before the message's first step
 * (docs/benchmarks.md#commits-per-device-round): the store's constructor was 3.8% of the worker's
 * busy samples in bench/profile-cpu.ts --fleet. Now the tables every run writes ride the commit of
 * the first write (a step's, or the owner's in the same turn), the compactions' and the images'
 * come with the first compaction or image, and until a table is made every read of it finds
 * nothing without asking SQLite. An object that has its tables makes the missing ones (tables
 * added since) when it starts, as before.
 *
 * One per object: a second instance over the same SQLite would not see the first one's tables.
 */
export class ConversationSchema {
  private made: Set<string>;

  constructor(private readonly sql: SqlStorage) {
    this.made = this.found();
    if (this.made.has("loop_kv")) this.make(Object.keys(TABLES) as TableName[]);
  }

  /** False while nothing was ever written: the reads have nothing to find. */
  get exists(): boolean {
    return this.made.has("loop_kv");
  }

  /** Whether `table` was made (before it is, a read of it finds nothing). */
  has(table: TableName): boolean {
    return this.made.has(table);
  }

  /** Before a write: the tables every run writes, and `more`. */
  ensure(...more: TableName[]): void {
    if (!this.exists) this.make(RUN_TABLES);
    for (const table of more) if (!this.made.has(table)) this.make([table]);
  }

  /** A rolled-back step may have undone the tables it made. */
  afterRollback(): void {
    this.made = this.found();
  }

  private make(tables: TableName[]): void {
    for (const table of tables) {
      this.sql.exec(TABLES[table]);
      this.made.add(table);
    }
  }

  private found(): Set<string> {
    return new Set(
      this.sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .toArray()
        .map((r) => r.name),
    );
  }
}
