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
