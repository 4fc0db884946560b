import { isImageRef } from "@edgeloop/protocol";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CallOutcome } from "../../durable-objects/conversation/core/index.js";

/**
 * A tool outcome as an MCP `CallToolResult`. Pure.
 * Success: the content blocks when the device sent some (text and images, whose bytes the
 * conversation stores apart: `imageData` has them by SHA-256), else the result text;
 * stderr and a truncation note follow as text. An error or a blocked call is `isError: true` with
 * a text that names the error type, so an MCP client's model reads the same facts ours does.
 */
export function callToolResult(
  outcome: CallOutcome,
  imageData: ReadonlyMap<string, string> = new Map(),
): CallToolResult {
  if (outcome.status === "blocked") {
    return { isError: true, content: [{ type: "text", text: `blocked: ${outcome.reason}` }] };
  }
  if (outcome.status === "error") {
    const parts = [`${outcome.error_type}: ${outcome.error}`];
    if (outcome.exit_code !== undefined) parts.push(`exit code: ${outcome.exit_code}`);
    if (outcome.stderr) parts.push(`stderr:\n${outcome.stderr}`);
    return { isError: true, content: [{ type: "text", text: parts.join("\n") }] };
  }
  const content: CallToolResult["content"] = outcome.content?.length
    ? outcome.content.map((b) => {
        if (b.type === "text") return { type: "text", text: b.text };
        if (!isImageRef(b)) return { ...b };
        // A stored image (docs/images.md): its bytes, read for this answer, or where to fetch it.
        const data = imageData.get(b.sha256);
        return data
          ? { type: "image", data, mimeType: b.media_type }
          : { type: "text", text: `[image ${b.media_type}, ${b.bytes} bytes: ${b.url}]` };
      })
    : [{ type: "text", text: outcome.result }];
  const notes: string[] = [];
  if (outcome.exit_code !== 0) notes.push(`[exit code ${outcome.exit_code}]`);
  if (outcome.stderr) notes.push(`[stderr]\n${outcome.stderr}`);
  if (outcome.truncated)
    notes.push(
      `[output truncated on the device: ${outcome.bytes_returned ?? "?"} of ${outcome.bytes_total ?? "?"} bytes]`,
    );
  if (notes.length > 0) content.push({ type: "text", text: notes.join("\n") });
  return { content };
}

export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}
