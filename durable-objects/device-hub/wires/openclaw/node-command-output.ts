/** What OpenClaw's node itself keeps of a command's output (its 200 000 limit): no more is kept here. */
const MAX_OUTPUT_CHARS = 200_000;

/**
 * What a command printed as progress, for the commands whose result leaves it out (a Claude CLI
 * turn, control-results.ts): kept in the hub's SQLite until the result arrives, so a hub that
 * restarts mid-turn still returns all of it.
 */
export class NodeCommandOutput {
  constructor(private readonly sql: SqlStorage) {
    sql.exec("CREATE TABLE IF NOT EXISTS openclaw_output (request_id TEXT PRIMARY KEY, text TEXT NOT NULL)");
  }

  append(requestId: string, chunk: string): void {
    this.sql.exec(
      "INSERT INTO openclaw_output (request_id, text) VALUES (?, substr(?, 1, ?)) " +
        "ON CONFLICT(request_id) DO UPDATE SET text = substr(text || excluded.text, 1, ?)",
      requestId,
      chunk,
      MAX_OUTPUT_CHARS,
      MAX_OUTPUT_CHARS,
    );
  }

  /** A command's kept text, once: it is dropped as it is read. */
  take(requestId: string): string {
    const row = this.sql
      .exec<{ text: string }>("SELECT text FROM openclaw_output WHERE request_id = ?", requestId)
      .toArray()[0];
    if (row) this.sql.exec("DELETE FROM openclaw_output WHERE request_id = ?", requestId);
    return row?.text ?? "";
  }

  /** A sign-in ends what the node was running (openclaw-wire.ts cutOff): its output goes too. */
  clear(): void {
    this.sql.exec("DELETE FROM openclaw_output");
  }
}
