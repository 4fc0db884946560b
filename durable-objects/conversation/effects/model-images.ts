import { modelMessages } from "../core/compaction.js";
import { type ChatMessage, type ImageLimits, imagesForModel, type LoopState } from "../core/index.js";
import type { ImageReader } from "../storage/image-store.js";

/**
 * The messages one model call sends: the model's view of the history (compaction.ts), its images
 * held to the limits (core/image-context.ts), and the bytes of those that stay read from the image
 * store for this call only. An image missing from the store (never expected) is left out with a note.
 */
export function modelCallMessages(state: LoopState, limits: ImageLimits, images: ImageReader): ChatMessage[] {
  return imagesForModel(modelMessages(state), limits).map((message) => {
    if ((message.role !== "tool" && message.role !== "user") || !message.images?.length) return message;
    const notes: string[] = [];
    const withData = message.images.flatMap((image) => {
      const data = images.getBase64(image.sha256);
      if (data !== null) return [{ ...image, data }];
      notes.push(`[image ${image.sha256.slice(0, 12)} not shown: it is no longer stored]`);
      return [];
    });
    const content = notes.length ? `${message.content}\n${notes.join("\n")}` : message.content;
    return { ...message, content, images: withData };
  });
}
