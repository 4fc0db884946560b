import type { Button, OutboundMessage } from "../../platform.js";
import { MARKDOWN_LINK, mapOutsideCode, singleCharEmphasis } from "../common/markdown-outside-code.js";

/**
 * Markdown → Slack mrkdwn (api.slack.com/reference/surfaces/formatting): `&`, `<`, `>` escaped,
 * `**bold**` → `*bold*`, `*italic*` → `_italic_`, `~~strike~~` → `~strike~`, headings → bold lines,
 * `[text](url)` → `<url|text>`. Code is left as written (Slack shows backticks as code too).
 */
export function toMrkdwn(markdown: string): string {
  return mapOutsideCode(markdown, (prose) =>
    singleCharEmphasis(prose)
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/^&gt; /gm, "> ") // a quote stays a quote
      .replace(MARKDOWN_LINK, (_m, _image, text: string, url: string) => (text ? `<${url}|${text}>` : `<${url}>`)),
  );
}

/** Slack's limits on a button (docs.slack.dev/reference/block-kit/block-elements/button-element). */
const BUTTON_TEXT_MAX = 75;
const SECTION_TEXT_MAX = 3000;

function buttonElement(b: Button, index: number) {
  return {
    type: "button",
    text: { type: "plain_text", text: b.label.slice(0, BUTTON_TEXT_MAX), emoji: true },
    // action_id must be unique in the message; the value is what comes back in block_actions.
    action_id: `edgeloop_${index}`,
    value: b.data,
    ...(b.style ? { style: b.style } : {}),
  };
}

/**
 * The body of chat.postMessage / chat.update: the text as a mrkdwn section block (the `text` field
 * is the notification's fallback) and each row of buttons as an actions block.
 */
export function messageBody(message: OutboundMessage): { text: string; blocks: unknown[] } {
  const text = toMrkdwn(message.markdown);
  // A section holds 3000 characters; escaping can push an answer split at 3000 past it, so the rest
  // goes into the next section rather than being refused (invalid_blocks).
  const blocks: unknown[] = [];
  for (let at = 0; at < text.length && text.trim(); at += SECTION_TEXT_MAX)
    blocks.push({ type: "section", text: { type: "mrkdwn", text: text.slice(at, at + SECTION_TEXT_MAX) } });
  let index = 0;
  for (const row of message.buttons ?? []) {
    if (row.length === 0) continue;
    blocks.push({ type: "actions", elements: row.map((b) => buttonElement(b, index++)) });
  }
  return { text, blocks };
}
