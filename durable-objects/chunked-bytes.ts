/**
 * Bytes kept in a Durable Object's SQLite as chunks: a value there may not exceed 2 MB, so the
 * pictures a conversation keeps (conversation/storage/image-store.ts) and the clips a hub keeps
 * (device-hub/storage/clip-store.ts) are stored in parts far below it, in a table
 * `{table}(sha256 TEXT, n INTEGER, data BLOB, PRIMARY KEY (sha256, n))` of their own.
 */

/** Far below the 2 MB value limit, so a row never nears it. */
const CHUNK_BYTES = 512 * 1024;

/** Writes `bytes` as the chunks of `sha256` (a chunk already there is kept); returns how many. */
export function writeChunks(sql: SqlStorage, table: string, sha256: string, bytes: Uint8Array): number {
  const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
  for (let n = 0; n < chunks; n++)
    sql.exec(
      `INSERT OR IGNORE INTO ${table} (sha256, n, data) VALUES (?, ?, ?)`,
      sha256,
      n,
      // A copy of exactly this chunk: a Buffer's `slice` and `buffer` share (and expose) its whole pool.
      Uint8Array.from(bytes.subarray(n * CHUNK_BYTES, (n + 1) * CHUNK_BYTES)).buffer,
    );
  return chunks;
}

/** The `length` bytes stored as the chunks of `sha256`, or null when the chunks do not add up to them. */
export function readChunks(sql: SqlStorage, table: string, sha256: string, length: number): Uint8Array | null {
  const out = new Uint8Array(length);
  let at = 0;
  for (const row of sql.exec<{ data: ArrayBuffer }>(`SELECT data FROM ${table} WHERE sha256 = ? ORDER BY n`, sha256)) {
    if (at + row.data.byteLength > length) return null;
    out.set(new Uint8Array(row.data), at);
    at += row.data.byteLength;
  }
  return at === length ? out : null;
}
