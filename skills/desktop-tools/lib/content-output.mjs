// @ts-check
// stdout for tools with output = "content": one JSON object with the result text and the
// content blocks (text and images) the LLM sees, per docs/skills.md.

/**
 * @typedef {{ type: "text", text: string } | { type: "image", data: string, mimeType: string }} ContentBlock
 */

/**
 * @param {string} result short text summary
 * @param {ContentBlock[]} content
 */
export function contentOutput(result, content) {
  return JSON.stringify({ result, content });
}
