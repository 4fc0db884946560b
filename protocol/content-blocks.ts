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
