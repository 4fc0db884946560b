import { z } from "zod";
import { parseArgs } from "./args.js";
import { doneError, doneText } from "./outcome.js";
import type { Builtin } from "./types.js";

const NAME = "canvas";

export const CANVAS_KV_KEY = "canvas";
export const MAX_CANVAS_BYTES = 256 * 1024;
const MAX_TITLE_CHARS = 200;

export const StoredCanvas = z.object({
  title: z.string(),
  format: z.enum(["html", "markdown"]),
  content: z.string(),
  /** ISO 8601 */
  updated_at: z.string(),
});
export type StoredCanvas = z.infer<typeof StoredCanvas>;

const Args = z.object({
  title: z.string().trim().min(1).max(MAX_TITLE_CHARS),
  content: z.string(),
  format: z.enum(["html", "markdown"]).default("markdown"),
});

export function canvasPath(conversationId: string): string {
  return `/v1/conversations/${encodeURIComponent(conversationId)}/canvas`;
}

/** One canvas per conversation: each call replaces it, so the page always shows the latest version. */
export const canvas: Builtin = {
  name: NAME,
  description:
    "Show the user a page (a report, a table, a small UI) at this conversation's canvas URL. Replaces the previous canvas. format: markdown (default) or html (scripts are blocked).",
  parameters: {
    type: "object",
    properties: {
      title: { type: "string", description: "Page title" },
      content: { type: "string", description: `The page, at most ${MAX_CANVAS_BYTES / 1024} KiB` },
      format: { type: "string", enum: ["markdown", "html"], default: "markdown", description: "markdown or html" },
    },
    required: ["title", "content"],
  },
  async run(args, ctx) {
    const parsed = parseArgs(NAME, Args, args);
    if (!parsed.ok) return parsed.result;
    const { title, content, format } = parsed.value;
    const bytes = new TextEncoder().encode(content).byteLength;
    if (bytes > MAX_CANVAS_BYTES) {
      return doneError(
        NAME,
        `content is ${bytes} bytes; the canvas holds at most ${MAX_CANVAS_BYTES} bytes (256 KiB): shorten it`,
        "invalid_params",
      );
    }
    const stored: StoredCanvas = { title, format, content, updated_at: new Date(ctx.now()).toISOString() };
    ctx.kv.put(CANVAS_KV_KEY, stored);
    return doneText(
      NAME,
      `Canvas "${title}" saved (${format}, ${bytes} bytes). The user can open it at ${canvasPath(ctx.conversation_id)}`,
    );
  },
};

/** What the canvas route reads back from kv; null when nothing (valid) is stored. */
export function parseStoredCanvas(value: unknown): StoredCanvas | null {
  const parsed = StoredCanvas.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/**
 * The HTTP body for a stored canvas. Model-written HTML is untrusted: the route that serves this
 * must add a strict Content-Security-Policy (no scripts, no connections, sandbox) and
 * `X-Content-Type-Options: nosniff`; this function only picks the type and body.
 */
export function renderCanvas(stored: StoredCanvas): { contentType: string; body: string } {
  if (stored.format === "html") return { contentType: "text/html; charset=utf-8", body: stored.content };
  return { contentType: "text/markdown; charset=utf-8", body: stored.content };
}
