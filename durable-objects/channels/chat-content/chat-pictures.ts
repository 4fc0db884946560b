import { Buffer } from "node:buffer";
import { type ImageInput, ImageRef, MODEL_IMAGE_TYPES } from "@edgeloop/protocol";
import { imageSize } from "../../conversation/core/image-size.js";

/**
 * Pictures in a chat, both ways (docs/channels.md#pictures): what a user's photos become in a
 * message to the model, and which images of a tool result a chat is sent as photos. Pure.
 */

/** The most images one `POST /v1/messages` carries (protocol/http-bodies.ts). */
const MAX_IMAGES_PER_MESSAGE = 16;

/** What the model reads when a user sends a picture without a caption (a message needs text). */
export const PICTURE_ONLY_TEXT = "(a picture, no caption)";

export type FetchedPicture = { bytes: Uint8Array; mediaType: string };

export type PicturesOutcome = { ok: true; images: ImageInput[] } | { ok: false; reason: string };

const megabytes = (n: number) => `${(n / 1_000_000).toFixed(1)} MB`;

/**
 * A user's pictures as a message's `images`, checked against the deployment's cap on a message's
 * images (MESSAGE_IMAGES_MAX_BYTES) and the formats every model reads. The type read from the
 * picture's header wins over the one the platform declared. A refusal says why, in words for the
 * chat: a picture is never dropped silently.
 */
export function picturesForMessage(pictures: FetchedPicture[], maxTotalBytes: number): PicturesOutcome {
  if (pictures.length > MAX_IMAGES_PER_MESSAGE)
    return { ok: false, reason: `At most ${MAX_IMAGES_PER_MESSAGE} pictures go in one message; send fewer.` };
  const total = pictures.reduce((sum, p) => sum + p.bytes.byteLength, 0);
  if (total > maxTotalBytes)
    return {
      ok: false,
      reason:
        `Not sent: ${pictures.length === 1 ? "the picture is" : "the pictures are"} ${megabytes(total)}; ` +
        `this edgeloop takes at most ${megabytes(maxTotalBytes)} of pictures in one message.`,
    };
  const images: ImageInput[] = [];
  for (const picture of pictures) {
    const mediaType = imageSize(picture.bytes)?.media_type ?? picture.mediaType;
    if (!(MODEL_IMAGE_TYPES as readonly string[]).includes(mediaType))
      return {
        ok: false,
        reason: `Not sent: a picture of type ${mediaType || "unknown"} cannot go to the model; send PNG, JPEG, GIF or WebP.`,
      };
    images.push({
      type: "image",
      source: {
        type: "base64",
        media_type: mediaType as ImageInput["source"]["media_type"],
        data: Buffer.from(picture.bytes).toString("base64"),
      },
    });
  }
  return { ok: true, images };
}

/** The stored images a tool result refers to (its `content` blocks with a sha256), each once. */
export function imageRefsOf(result: unknown): ImageRef[] {
  const content = (result as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return [];
  const seen = new Set<string>();
  const refs: ImageRef[] = [];
  for (const block of content) {
    const ref = ImageRef.safeParse(block);
    if (ref.success && !seen.has(ref.data.sha256)) {
      seen.add(ref.data.sha256);
      refs.push(ref.data);
    }
  }
  return refs;
}

/** The caption of a tool's picture: which tool on which device. Plain text (captions are not formatted). */
export const photoCaption = (tool: string, agentId: string) => `🖼 ${tool} on ${agentId}`;

/**
 * What a chat is told instead of a photo the platform would refuse for its size (its module's
 * `limits.photoMaxBytes`); null when the photo fits.
 */
export function photoTooLarge(
  platform: { title: string; limits: { photoMaxBytes: number } },
  bytes: number,
  caption: string,
): string | null {
  const limit = platform.limits.photoMaxBytes;
  if (bytes <= limit) return null;
  return (
    `${caption}: a picture of ${megabytes(bytes)}, over ${platform.title}'s ${megabytes(limit)} ` +
    "for photos; see it in the conversation (dashboard or `edgeloop conversations ID --images DIR`)."
  );
}
