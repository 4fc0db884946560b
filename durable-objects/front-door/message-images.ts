import { base64DecodedBytes, type MessageRequest } from "@edgeloop/protocol";
import { imageSettings } from "../conversation/settings/image-settings.js";
import type { FrontDoorEnv } from "./front-door-env.js";

export type ImagesRefusal = { status: 413 | 500; title: string; detail: string; extra?: Record<string, unknown> };

/**
 * What a message body may carry beyond MAX_BODY_BYTES for its images: their cap, base64-encoded,
 * plus the JSON around each of the 16 blocks. Without it the body cap would refuse any photo
 * long before MESSAGE_IMAGES_MAX_BYTES could (docs/images.md).
 */
export function roomForImages(env: FrontDoorEnv): number {
  const settings = imageSettings(env);
  return settings.ok ? Math.ceil(settings.value.messageImagesMaxBytes / 3) * 4 + 16 * 256 : 0;
}

/**
 * A body over MAX_BODY_BYTES once its images' base64 is set aside (the room above the cap is theirs
 * alone): its size in bytes, or null. Read before the body is validated, so a long text is refused
 * for the body's size as it would be without images.
 */
export function bodyBeyondImages(rawBody: string, maxBodyBytes: number): number | null {
  const total = new TextEncoder().encode(rawBody).byteLength;
  if (total <= maxBodyBytes) return null;
  let imageChars = 0;
  try {
    const images = (JSON.parse(rawBody) as { images?: unknown }).images;
    if (Array.isArray(images))
      for (const i of images) {
        const data = (i as { source?: { data?: unknown } } | null)?.source?.data;
        if (typeof data === "string") imageChars += data.length;
      }
  } catch {
    // Not JSON: nothing is set aside; the body is refused for its size here or for its syntax next.
  }
  return total - imageChars > maxBodyBytes ? total - imageChars : null;
}

/**
 * A message's images over the deployment's cap (MESSAGE_IMAGES_MAX_BYTES, decoded bytes of all of
 * them): a 413 that says the cap. Null when they fit, or when there are none (docs/images.md).
 */
export function imagesRefusal(env: FrontDoorEnv, msg: MessageRequest): ImagesRefusal | null {
  if (!msg.images?.length) return null;
  const settings = imageSettings(env);
  if (!settings.ok) return { status: 500, title: "Server misconfigured", detail: settings.error };
  const cap = settings.value.messageImagesMaxBytes;
  const total = msg.images.reduce((sum, i) => sum + base64DecodedBytes(i.source.data), 0);
  if (total <= cap) return null;
  return {
    status: 413,
    title: "Images too large",
    detail: `the message's images are ${total} bytes; the limit is ${cap} (MESSAGE_IMAGES_MAX_BYTES)`,
    extra: { errors: [{ path: "images", message: `at most ${cap} bytes in all` }] },
  };
}
