/**
 * Apply `convert` to the parts of a Markdown text that are not code (fenced blocks and inline
 * spans), leaving code as the model wrote it: every chat format keeps backticks, and a formatting
 * rule must never rewrite a program.
 */
export function mapOutsideCode(markdown: string, convert: (prose: string) => string): string {
  const parts = markdown.split(/(```[\s\S]*?(?:```|$)|`[^`\n]+`)/);
  return parts.map((part, i) => (i % 2 === 1 ? part : convert(part))).join("");
}

/** `[text](url)` links and `![alt](url)` images, matched for conversion to a platform's own form. */
export const MARKDOWN_LINK = /(!?)\[([^\]\n]*)\]\(([^)\s]+)\)/g;

/**
 * Markdown emphasis → the single-character style Slack and WhatsApp share: `*italic*` → `_italic_`
 * (first, so the bold that follows is not taken for it), `**bold**` and `__bold__` → `*bold*`,
 * `~~strike~~` → `~strike~`, a heading → a bold line.
 */
export function singleCharEmphasis(prose: string): string {
  return prose
    .replace(/(^|[^*])\*(?!\s)([^*\n]+?)\*(?!\*)/g, "$1_$2_")
    .replace(/\*\*(.+?)\*\*/g, "*$1*")
    .replace(/__(.+?)__/g, "*$1*")
    .replace(/~~(.+?)~~/g, "~$1~")
    .replace(/^#{1,6}\s+(.+)$/gm, "*$1*");
}
