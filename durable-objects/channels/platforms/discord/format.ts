import type { Button, OutboundMessage } from "../../platform.js";
import { MARKDOWN_LINK, mapOutsideCode } from "../common/markdown-outside-code.js";

/**
 * Markdown → Discord's Markdown (support.discord.com, "Markdown Text 101"): nearly the same, so
 * little changes. Headings deeper than `###` become bold lines, and an image link becomes its URL
 * (Discord embeds it). Code is left as written.
 */
export function toDiscordMarkdown(markdown: string): string {
  return mapOutsideCode(markdown, (prose) =>
    prose
      .replace(/^#{4,6}\s+(.+)$/gm, "**$1**")
      .replace(MARKDOWN_LINK, (match, image: string, _text: string, url: string) => (image ? url : match)),
  );
}

/** Component limits (discord.com/developers/docs/components/reference#button). */
const LABEL_MAX = 80;
const BUTTONS_PER_ROW = 5;
const ROWS_MAX = 5;
const STYLE = { primary: 1, secondary: 2, danger: 4 } as const;

function buttonComponent(b: Button) {
  return { type: 2, style: STYLE[b.style ?? "secondary"], label: b.label.slice(0, LABEL_MAX), custom_id: b.data };
}

/** Rows of buttons as action rows (type 1) of buttons (type 2), a long row wrapped at five. */
export function components(buttons: Button[][] | undefined): unknown[] {
  const rows: Button[][] = [];
  for (const row of buttons ?? []) {
    for (let i = 0; i < row.length; i += BUTTONS_PER_ROW) rows.push(row.slice(i, i + BUTTONS_PER_ROW));
  }
  return rows.slice(0, ROWS_MAX).map((row) => ({ type: 1, components: row.map(buttonComponent) }));
}

/**
 * A message's JSON body. `components` is always sent, so an edit without buttons removes the card's
 * buttons; mentions in the model's text never ping anyone.
 */
export function messageBody(message: OutboundMessage) {
  return {
    content: toDiscordMarkdown(message.markdown),
    components: components(message.buttons),
    allowed_mentions: { parse: [] },
  };
}
