import type { ImageInput, ImageRef, OutcomeBlock, ToolOutcome } from "@edgeloop/protocol";
import type { LoopEvent } from "../core/index.js";
import type { ImageStore } from "./image-store.js";

/**
 * Where images enter the conversation: every outcome and progress update goes through here before
 * the loop sees it, whoever produced it (a device, a remote MCP server, a built-in), so the loop
 * state, the step log and the event stream hold references and never the bytes
 * (docs/architecture.md#images-are-stored-apart).
 * An event without images is returned as it is.
 */
export function storeEventImages(event: LoopEvent, store: ImageStore, conversationId: string): LoopEvent {
  switch (event.type) {
    case "tool_result":
    case "late_tool_result": {
      const outcome = storeOutcomeImages(event.outcome, store, conversationId);
      return outcome === event.outcome ? event : { ...event, outcome };
    }
    case "tool_progress": {
      if (!Array.isArray(event.partial) || !event.partial.some(hasImageData)) return event;
      return { ...event, partial: event.partial.map((b) => storeBlock(b as OutcomeBlock, store, conversationId)) };
    }
    default:
      return event;
  }
}

export function storeOutcomeImages(outcome: ToolOutcome, store: ImageStore, conversationId: string): ToolOutcome {
  if (outcome.status !== "success" || !outcome.content?.some(hasImageData)) return outcome;
  return { ...outcome, content: outcome.content.map((b) => storeBlock(b, store, conversationId)) };
}

/** A message's images (POST /v1/messages), stored. */
export function storeInputImages(
  images: readonly ImageInput[] | undefined,
  store: ImageStore,
  conversationId: string,
): ImageRef[] {
  return (images ?? []).map((i) => store.putBase64(i.source.data, i.source.media_type, conversationId));
}

function storeBlock(block: OutcomeBlock, store: ImageStore, conversationId: string): OutcomeBlock {
  return hasImageData(block) ? store.putBase64(block.data, block.mimeType, conversationId) : block;
}

function hasImageData(block: unknown): block is { type: "image"; data: string; mimeType: string } {
  const b = block as { type?: unknown; data?: unknown; mimeType?: unknown } | null;
  return b?.type === "image" && typeof b.data === "string" && typeof b.mimeType === "string";
}
