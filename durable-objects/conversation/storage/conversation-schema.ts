/** Every table of a conversation's SQLite (the stores that read and write each are named beside it). */
const TABLES = [
  // conversation-store.ts: the state row and what changes once per message
  "CREATE TABLE IF NOT EXISTS loop_kv (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID",
  // conversation-store.ts: built-ins' data (todos, canvas), the parent link, reply targets, tracing
  "CREATE TABLE IF NOT EXISTS builtin_kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)",
  // conversation-store.ts: every compaction so far, for GET /v1/conversations/:id (the view uses only the latest)
  "CREATE TABLE IF NOT EXISTS compactions (seq INTEGER PRIMARY KEY AUTOINCREMENT, json TEXT NOT NULL)",
  // conversation-store.ts: every message id taken, so a message posted again (a retry after a crash) is taken once
  "CREATE TABLE IF NOT EXISTS taken_messages (message_id TEXT PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID",
  // step-log.ts
  `CREATE TABLE IF NOT EXISTS steps (
      ev INTEGER NOT NULL, n INTEGER NOT NULL, at INTEGER NOT NULL, events TEXT, messages TEXT, calls TEXT,
      PRIMARY KEY (ev, n)) WITHOUT ROWID`,
  // message-marks.ts
  "CREATE TABLE IF NOT EXISTS message_marks (m INTEGER PRIMARY KEY, ev INTEGER NOT NULL, n INTEGER NOT NULL)",
  // image-store.ts
  "CREATE TABLE IF NOT EXISTS images (sha256 TEXT PRIMARY KEY, media_type TEXT NOT NULL, bytes INTEGER NOT NULL, " +
    "width INTEGER, height INTEGER, chunks INTEGER NOT NULL, at INTEGER NOT NULL) WITHOUT ROWID",
  "CREATE TABLE IF NOT EXISTS image_chunks (sha256 TEXT NOT NULL, n INTEGER NOT NULL, data BLOB NOT NULL, " +
    "PRIMARY KEY (sha256, n)) WITHOUT ROWID",
];

/**
 * A conversation's tables, made by its first write rather than when its object starts. Every
 * message is a new conversation unless it names one, and making the eight tables when the object
 * started cost a commit of its own before the message's first step (docs/benchmarks.md#commits-per-device-round)
 * and 3.8% of the worker's busy samples in bench/profile-cpu.ts --fleet. Now they ride the commit
 * of the first step (or of whatever is written first), and until then every read finds nothing
 * without asking SQLite. An object that has its tables makes the missing ones (tables added since)
 * when it starts, as before.
 *
 * One per object: a second instance over the same SQLite would not see the first one's tables.
 */
export class ConversationSchema {
  private made: boolean;

  constructor(private readonly sql: SqlStorage) {
    this.made = this.found();
    if (this.made) this.make();
  }

  /** False while nothing was ever written: the reads have nothing to find. */
  get exists(): boolean {
    return this.made;
  }

  /** Before a write. */
  ensure(): void {
    if (!this.made) this.make();
  }

  /** A rolled-back step may have undone the tables it made. */
  afterRollback(): void {
    this.made = this.found();
  }

  private make(): void {
    for (const ddl of TABLES) this.sql.exec(ddl);
    this.made = true;
  }

  private found(): boolean {
    return this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'loop_kv'").toArray().length > 0;
  }
}
