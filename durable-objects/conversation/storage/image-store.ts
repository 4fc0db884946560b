import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type { ImageRef } from "@edgeloop/protocol";
import { readChunks, writeChunks } from "../../chunked-bytes.js";
import type { StoredImage } from "../conversation-rpc.js";
import { imageSize } from "../core/image-size.js";
import type { ConversationSchema } from "./conversation-schema.js";

/**
 * The conversation's images, stored once each by their SHA-256, apart from the history (which
 * holds ImageRef only, so no state or log row grows with a picture). A SQLite value in a Durable
 * Object may not exceed 2 MB, so the bytes are kept in chunks well under it. The same picture sent
 * twice (a screenshot of an unchanged screen, a retried call) is stored once. Content-addressed
 * and never rewritten: a write outside a step's transaction that the step then rolls back leaves
 * an unreferenced image, never a wrong one.
 *
 * This is the API the rest of the conversation (and channels that send photos) use: `put` and
 * `putBase64` to store, `get` to read the bytes back, `ref` for the reference clients see.
 */

/** Where clients fetch a conversation's image (worker/routes/conversation-images.ts). */
export function imageUrl(conversationId: string, sha256: string): string {
  return `/v1/conversations/${encodeURIComponent(conversationId)}/images/${sha256}`;
}

/** What a model call needs of the store: an image's bytes, as base64. */
export type ImageReader = Pick<ImageStore, "getBase64">;

export class ImageStore {
  constructor(
    private readonly sql: SqlStorage,
    /** the `images` and `image_chunks` tables (conversation-schema.ts): none before the first write */
    private readonly schema: ConversationSchema,
  ) {}

  /**
   * Store an image (once) and return its reference. The type read from the header wins over the
   * one declared; an image whose header is not read keeps the declared type and no size.
   */
  put(bytes: Uint8Array, declaredType: string, conversationId: string): ImageRef {
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const existing = this.ref(sha256, conversationId);
    if (existing) return existing;
    const size = imageSize(bytes);
    const media_type = size?.media_type ?? declaredType;
    this.schema.ensure("images", "image_chunks");
    const chunks = writeChunks(this.sql, "image_chunks", sha256, bytes);
    this.sql.exec(
      "INSERT OR IGNORE INTO images (sha256, media_type, bytes, width, height, chunks, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      sha256,
      media_type,
      bytes.length,
      size?.width ?? null,
      size?.height ?? null,
      chunks,
      Date.now(),
    );
    return this.ref(sha256, conversationId)!;
  }

  putBase64(data: string, declaredType: string, conversationId: string): ImageRef {
    return this.put(Buffer.from(data, "base64"), declaredType, conversationId);
  }

  /** The reference to a stored image (served under `conversationId`); null when there is none by that hash. */
  ref(sha256: string, conversationId: string): ImageRef | null {
    if (!this.schema.has("images")) return null;
    const row = this.sql
      .exec<{ media_type: string; bytes: number; width: number | null; height: number | null }>(
        "SELECT media_type, bytes, width, height FROM images WHERE sha256 = ?",
        sha256,
      )
      .toArray()[0];
    if (!row) return null;
    return {
      type: "image",
      media_type: row.media_type,
      sha256,
      bytes: row.bytes,
      ...(row.width !== null && row.height !== null ? { width: row.width, height: row.height } : {}),
      url: imageUrl(conversationId, sha256),
    };
  }

  get(sha256: string): StoredImage | null {
    if (!this.schema.has("images")) return null;
    const head = this.sql
      .exec<{ media_type: string; bytes: number }>("SELECT media_type, bytes FROM images WHERE sha256 = ?", sha256)
      .toArray()[0];
    if (!head) return null;
    const bytes = readChunks(this.sql, "image_chunks", sha256, head.bytes);
    return bytes ? { media_type: head.media_type, bytes } : null;
  }

  getBase64(sha256: string): string | null {
    const image = this.get(sha256);
    return image ? Buffer.from(image.bytes).toString("base64") : null;
  }

  /** How many images and bytes are stored, for the view and the tests. */
  stats(): { images: number; bytes: number } {
    if (!this.schema.has("images")) return { images: 0, bytes: 0 };
    const row = this.sql
      .exec<{ images: number; bytes: number | null }>("SELECT COUNT(*) AS images, SUM(bytes) AS bytes FROM images")
      .one();
    return { images: row.images, bytes: row.bytes ?? 0 };
  }
}
