/**
 * Markdown as models write it → the HTML subset Telegram's `parse_mode: "HTML"` accepts
 * (https://core.telegram.org/bots/api#html-style): <b>, <i>, <s>, <code>, <pre>, <a href>. HTML is
 * chosen over MarkdownV2 because only `&`, `<` and `>` need escaping, so text the model did not
 * mean as markup can never break the message. Pure; unbalanced markers stay as written.
 */

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const escapeAttr = (s: string) => escapeHtml(s).replace(/"/g, "&quot;");

function pre(lines: string[], lang: string): string {
  const body = escapeHtml(lines.join("\n"));
  return lang ? `<pre><code class="language-${escapeAttr(lang)}">${body}</code></pre>` : `<pre>${body}</pre>`;
}

/** Emphasis and links in text that holds no code (already escaped). */
function emphasis(s: string): string {
  return s
    .replace(
      /\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g,
      (_m, t: string, url: string) => `<a href="${url.replace(/"/g, "&quot;")}">${t}</a>`,
    )
    .replace(/\*\*([^*\n]+)\*\*/g, "<b>$1</b>")
    .replace(/(^|[^\w])__([^_\n]+)__(?=[^\w]|$)/g, "$1<b>$2</b>")
    .replace(/~~([^~\n]+)~~/g, "<s>$1</s>")
    .replace(/(^|[^*\w])\*([^*\s][^*\n]*?)\*(?=[^*\w]|$)/g, "$1<i>$2</i>")
    .replace(/(^|[^\w])_([^_\s][^_\n]*?)_(?=[^\w]|$)/g, "$1<i>$2</i>");
}

function inlineLine(line: string): string {
  const heading = line.match(/^#{1,6}\s+(.*)$/);
  if (heading) return `<b>${inlineLine(heading[1]!)}</b>`;
  const bullet = line.match(/^(\s*)[-*+]\s+(.*)$/);
  if (bullet) return `${bullet[1]}• ${inlineLine(bullet[2]!)}`;
  // Inline code first: nothing inside backticks is markup.
  return line
    .split(/(`[^`\n]+`)/)
    .map((part, i) => (i % 2 === 1 ? `<code>${escapeHtml(part.slice(1, -1))}</code>` : emphasis(escapeHtml(part))))
    .join("");
}

export function markdownToTelegramHtml(markdown: string): string {
  const out: string[] = [];
  let fence: { lang: string; lines: string[] } | null = null;
  for (const line of markdown.split("\n")) {
    const marker = line.match(/^\s*```\s*([\w+-]*)\s*$/);
    if (marker) {
      if (fence) {
        out.push(pre(fence.lines, fence.lang));
        fence = null;
      } else fence = { lang: marker[1] ?? "", lines: [] };
      continue;
    }
    if (fence) fence.lines.push(line);
    else out.push(inlineLine(line));
  }
  // A reply still streaming may have opened a block it has not closed yet.
  if (fence) out.push(pre(fence.lines, fence.lang));
  return out.join("\n");
}
