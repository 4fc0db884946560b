import type { ContentBlock } from "./content-blocks.js";
import type { ToolOutcome } from "./device-frames.js";

/**
 * An MCP `tools/call` result as our tool outcome, for both ends that call MCP servers: the device
 * agent (an MCP server as a skill) and the conversation (remote MCP servers). Pure, so both
 * runtimes share one mapping:
 *
 * - text blocks stay text, image blocks stay images (within the image cap);
 * - an embedded resource becomes text that names its URI (binary resources and audio are described,
 *   not included); a resource link becomes a line with its URI;
 * - `structuredContent` is shown as JSON only when the server sent no text;
 * - `isError: true` is an `execution_failed` error carrying the server's own text.
 *
 * The types are the wire shapes, structurally: callers pass what the MCP SDK parsed.
 */
export type McpContentBlock = { type: string; [key: string]: unknown };
export type McpCallResult = { content?: McpContentBlock[]; structuredContent?: unknown; isError?: boolean };

export type McpResultLimits = {
  /** UTF-8 bytes of text kept (the rest is cut with a note) */
  maxTextBytes: number;
  /** base64 characters of images kept in total (an image beyond it is described instead) */
  maxImageChars: number;
  elapsedMs: number;
};

const IMAGE_MIME = /^image\/[a-z0-9.+-]+$/;

export function outcomeFromMcpResult(tool: string, result: McpCallResult, limits: McpResultLimits): ToolOutcome {
  const blocks: ContentBlock[] = [];
  let imageChars = 0;
  const content = Array.isArray(result.content) ? result.content : [];
  for (const block of content) {
    if (block.type === "image" && typeof block.data === "string" && typeof block.mimeType === "string") {
      if (!IMAGE_MIME.test(block.mimeType) || block.data.length === 0) {
        blocks.push({ type: "text", text: `[image with unsupported type ${block.mimeType} not shown]` });
      } else if (imageChars + block.data.length > limits.maxImageChars) {
        blocks.push({
          type: "text",
          text: `[image ${block.mimeType}, ${base64Bytes(block.data)} bytes, over the image cap]`,
        });
      } else {
        imageChars += block.data.length;
        blocks.push({ type: "image", data: block.data, mimeType: block.mimeType });
      }
      continue;
    }
    blocks.push({ type: "text", text: describeBlock(block) });
  }
  const hasText = blocks.some((b) => b.type === "text");
  if (!hasText && result.structuredContent !== undefined) {
    blocks.push({ type: "text", text: JSON.stringify(result.structuredContent, null, 2) });
  }

  const texts = blocks
    .filter((b): b is Extract<ContentBlock, { type: "text" }> => b.type === "text")
    .map((b) => b.text);
  const full = texts.join("\n");
  const cut = capUtf8(full, limits.maxTextBytes);

  if (result.isError === true) {
    return {
      status: "error",
      tool,
      error: cut.text.trim() === "" ? "the MCP server reported an error without a message" : cut.text,
      error_type: "execution_failed",
      elapsed_ms: limits.elapsedMs,
    };
  }
  const images = blocks.some((b) => b.type === "image");
  const truncation = cut.truncated ? { truncated: true, bytes_total: cut.bytesTotal, bytes_returned: cut.bytes } : {};
  return {
    status: "success",
    tool,
    result: cut.text,
    stderr: "",
    exit_code: 0,
    elapsed_ms: limits.elapsedMs,
    // Blocks only when there is an image: a text-only result reads like any tool's stdout.
    ...(images ? { content: cutBlocks(blocks, limits.maxTextBytes) } : {}),
    ...truncation,
  };
}

function describeBlock(block: McpContentBlock): string {
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? block.text : "";
    case "resource": {
      const resource = (block.resource ?? {}) as Record<string, unknown>;
      const uri = String(resource.uri ?? "(no uri)");
      if (typeof resource.text === "string") return `[resource ${uri}]\n${resource.text}`;
      const mime = typeof resource.mimeType === "string" ? ` ${resource.mimeType}` : "";
      const size = typeof resource.blob === "string" ? `, ${base64Bytes(resource.blob)} bytes` : "";
      return `[resource ${uri}${mime}${size}: binary content not shown]`;
    }
    case "resource_link": {
      const name = typeof block.name === "string" ? ` (${block.name})` : "";
      const description = typeof block.description === "string" ? `: ${block.description}` : "";
      return `[resource link ${String(block.uri ?? "(no uri)")}${name}${description}]`;
    }
    case "audio": {
      const size = typeof block.data === "string" ? `, ${base64Bytes(block.data)} bytes` : "";
      return `[audio ${String(block.mimeType ?? "")}${size}: not shown]`;
    }
    default:
      return `[${String(block.type)} content not shown]`;
  }
}

/** Text blocks cut to the same budget as the joined result, images kept as they are. */
function cutBlocks(blocks: ContentBlock[], maxTextBytes: number): ContentBlock[] {
  let left = maxTextBytes;
  const out: ContentBlock[] = [];
  for (const block of blocks) {
    if (block.type === "image") {
      out.push(block);
      continue;
    }
    const cut = capUtf8(block.text, Math.max(0, left));
    left -= cut.bytes + 1;
    if (cut.text !== "" || block.text === "") out.push({ type: "text", text: cut.text });
  }
  return out;
}

const base64Bytes = (data: string) => Math.floor((data.replace(/=+$/, "").length * 3) / 4);

function capUtf8(
  text: string,
  maxBytes: number,
): { text: string; truncated: boolean; bytes: number; bytesTotal: number } {
  const encoded = new TextEncoder().encode(text);
  if (encoded.byteLength <= maxBytes) {
    return { text, truncated: false, bytes: encoded.byteLength, bytesTotal: encoded.byteLength };
  }
  // Stream-mode decoding drops a character cut in half instead of inventing one.
  const kept = new TextDecoder().decode(encoded.subarray(0, maxBytes), { stream: true });
  return {
    text: kept,
    truncated: true,
    bytes: new TextEncoder().encode(kept).byteLength,
    bytesTotal: encoded.byteLength,
  };
}
