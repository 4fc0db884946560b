import { base64DecodedBytes, type MessageRequest } from "@edgeloop/protocol";
import { imageSettings } from "../conversation/settings/image-settings.js";
import type { FrontDoorEnv } from "./front-door-env.js";

export type ImagesRefusal = { status: 413 | 500; title: string; detail: string; extra?: Record<string, unknown> };

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
