import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { readChunks, writeChunks } from "../../chunked-bytes.js";

/**
 * Video clips an OpenClaw node recorded (`camera.clip`, `screen.record`), kept in the device's hub
 * where they arrive, served at GET /v1/devices/:agent_id/clips/:sha256 (docs/openclaw-nodes.md#clips).
 * A Worker has no video decoder, so a clip is only stored and linked, never shown to the model.
 * Stored the way the conversation stores images (storage/image-store.ts there): once by SHA-256,
 * in chunks (chunked-bytes.ts). Not in the conversation: the bytes arrive in
 * the node's frame here, and another copy of up to DEVICE_MAX_FRAME_BYTES through an RPC buys
 * nothing. Bounded: the newest clips up to MAX_TOTAL_BYTES stay, older ones are dropped.
 *
 * Also the clips waiting for their poster (a still the hub asks the node for right after the
 * clip), by the call's request id, so a hub that hibernates meanwhile still finishes the call.
 */

/** What one device's clips may take, in total; the oldest go first. */
export const MAX_TOTAL_BYTES = 256 * 1024 * 1024;

export type StoredClip = { media_type: string; bytes: Uint8Array };

/** A clip waiting for its poster: what the call's outcome will say. */
export type PendingPoster = { request_id: string; sha256: string; meta: string; at: number };

/** A clip's poster that never came (its call ended at its deadline) is forgotten after this long. */
const POSTER_WAIT_KEPT_MS = 24 * 60 * 60 * 1000;

export class ClipStore {
  constructor(
    private readonly sql: SqlStorage,
    private readonly maxTotalBytes = MAX_TOTAL_BYTES,
  ) {
    sql.exec(
      "CREATE TABLE IF NOT EXISTS clips (sha256 TEXT PRIMARY KEY, media_type TEXT NOT NULL, bytes INTEGER NOT NULL, " +
        "chunks INTEGER NOT NULL, at INTEGER NOT NULL) WITHOUT ROWID",
    );
    sql.exec(
      "CREATE TABLE IF NOT EXISTS clip_chunks (sha256 TEXT NOT NULL, n INTEGER NOT NULL, data BLOB NOT NULL, " +
        "PRIMARY KEY (sha256, n)) WITHOUT ROWID",
    );
    sql.exec(
      "CREATE TABLE IF NOT EXISTS clip_posters (request_id TEXT PRIMARY KEY, sha256 TEXT NOT NULL, meta TEXT NOT NULL, " +
        "at INTEGER NOT NULL) WITHOUT ROWID",
    );
  }

  /** Store a clip (once) and return its hash; older clips go when the total passes MAX_TOTAL_BYTES. */
  putBase64(base64: string, mediaType: string, now: number): { sha256: string; bytes: number } {
    const bytes = Buffer.from(base64, "base64");
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const known = this.sql.exec("SELECT 1 FROM clips WHERE sha256 = ?", sha256).toArray().length > 0;
    if (!known) {
      const chunks = writeChunks(this.sql, "clip_chunks", sha256, bytes);
      this.sql.exec(
        "INSERT INTO clips (sha256, media_type, bytes, chunks, at) VALUES (?, ?, ?, ?, ?)",
        sha256,
        mediaType,
        bytes.length,
        chunks,
        now,
      );
      this.prune(sha256);
    }
    return { sha256, bytes: bytes.length };
  }

  /** Drop the oldest clips (never `keep`) until the rest fit the total. */
  private prune(keep: string): void {
    let total = this.sql.exec<{ t: number | null }>("SELECT SUM(bytes) AS t FROM clips").one().t ?? 0;
    if (total <= this.maxTotalBytes) return;
    const oldest = this.sql
      .exec<{ sha256: string; bytes: number }>("SELECT sha256, bytes FROM clips WHERE sha256 != ? ORDER BY at", keep)
      .toArray();
    for (const c of oldest) {
      if (total <= this.maxTotalBytes) break;
      this.sql.exec("DELETE FROM clip_chunks WHERE sha256 = ?", c.sha256);
      this.sql.exec("DELETE FROM clips WHERE sha256 = ?", c.sha256);
      total -= c.bytes;
    }
  }

  get(sha256: string): StoredClip | null {
    const head = this.sql
      .exec<{ media_type: string; bytes: number }>("SELECT media_type, bytes FROM clips WHERE sha256 = ?", sha256)
      .toArray()[0];
    if (!head) return null;
    const bytes = readChunks(this.sql, "clip_chunks", sha256, head.bytes);
    return bytes ? { media_type: head.media_type, bytes } : null;
  }

  awaitPoster(p: PendingPoster): void {
    this.sql.exec("DELETE FROM clip_posters WHERE at < ?", p.at - POSTER_WAIT_KEPT_MS);
    this.sql.exec(
      "INSERT OR REPLACE INTO clip_posters (request_id, sha256, meta, at) VALUES (?, ?, ?, ?)",
      p.request_id,
      p.sha256,
      p.meta,
      p.at,
    );
  }

  /** The clip waiting for this call's poster, taken off the list. */
  takePoster(requestId: string): PendingPoster | null {
    const row = this.sql
      .exec<PendingPoster>("SELECT request_id, sha256, meta, at FROM clip_posters WHERE request_id = ?", requestId)
      .toArray()[0];
    if (row) this.sql.exec("DELETE FROM clip_posters WHERE request_id = ?", requestId);
    return row ?? null;
  }
}
