import { z } from "zod";

/** A block of tool output the LLM can see: text, or an image. */
export const TextBlock = z.object({ type: z.literal("text"), text: z.string() });
export const ImageBlock = z.object({
  type: z.literal("image"),
  /** base64, no data: prefix */
  data: z.string().min(1),
  mimeType: z.string().regex(/^image\/[a-z0-9.+-]+$/),
});
export const ContentBlock = z.discriminatedUnion("type", [TextBlock, ImageBlock]);
export type ContentBlock = z.infer<typeof ContentBlock>;

/**
 * An image as the conversation keeps and shows it: stored once per conversation by its content
 * hash (docs/images.md), fetched at `url` with the conversation's own authorization. Tool results in
 * the history, the conversation view and the event stream carry this instead of the bytes.
 */
export const ImageRef = z.object({
  type: z.literal("image"),
  media_type: z.string().regex(/^image\/[a-z0-9.+-]+$/),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** decoded size */
  bytes: z.number().int().nonnegative(),
  /** read from the image's header; absent for a format whose header is not read */
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  /** `/v1/conversations/:id/images/:sha256` */
  url: z.string(),
});
export type ImageRef = z.infer<typeof ImageRef>;

/** A block of a tool outcome inside the conversation: what a device sent, or an image already stored. */
export type OutcomeBlock = ContentBlock | ImageRef;

export function isImageRef(block: { type: string }): block is ImageRef {
  return block.type === "image" && "sha256" in block;
}

/**
 * The text of the user message that carries tool results' images to a Chat Completions model
 * (whose tool messages are text only), after the results; the wording OpenClaw uses.
 */
export const TOOL_IMAGES_TEXT = "Attached image(s) from tool result:";

/** The image types every provider reads (and whose headers the conversation reads). */
export const MODEL_IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

/**
 * An image in `POST /v1/messages`, in Anthropic's shape: `{type:"image", source:{type:"base64",
 * media_type, data}}`. The decoded size is capped per message by the front door (413 above).
 */
export const ImageInput = z
  .object({
    type: z.literal("image"),
    source: z
      .object({
        type: z.literal("base64"),
        media_type: z.enum(MODEL_IMAGE_TYPES),
        data: z
          .string()
          .min(1)
          .regex(/^[A-Za-z0-9+/]+={0,2}$/, "must be base64 without a data: prefix"),
      })
      .strict(),
  })
  .strict();
export type ImageInput = z.infer<typeof ImageInput>;

/** Decoded bytes of a base64 string (no padding or whitespace counted). */
export function base64DecodedBytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}
