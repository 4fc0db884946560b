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
  const blocks: unknown[] = text.trim() ? [{ type: "section", text: { type: "mrkdwn", text } }] : [];
  let index = 0;
  for (const row of message.buttons ?? []) {
    if (row.length === 0) continue;
    blocks.push({ type: "actions", elements: row.map((b) => buttonElement(b, index++)) });
  }
  return { text, blocks };
}
