import type { Button } from "../../platform.js";
import { MARKDOWN_LINK, mapOutsideCode, singleCharEmphasis } from "../common/markdown-outside-code.js";

/**
 * Markdown → WhatsApp's formatting (faq.whatsapp.com, "How to format your messages"): single-char
 * emphasis, headings as bold lines, a link as `text (url)` (WhatsApp has no link syntax and shows
 * URLs as links). Code is left as written: WhatsApp shows backticks as code too.
 */
export function toWhatsAppText(markdown: string): string {
  return mapOutsideCode(markdown, (prose) =>
    singleCharEmphasis(prose).replace(MARKDOWN_LINK, (_m, _image, text: string, url: string) =>
      text && text !== url ? `${text} (${url})` : url,
    ),
  );
}

/** Interactive message limits (developers.facebook.com/docs/whatsapp/cloud-api/messages/interactive-reply-buttons-messages). */
export const BODY_MAX = 1024;
const REPLY_BUTTONS_MAX = 3;
const REPLY_TITLE_MAX = 20;
const LIST_ROWS_MAX = 10;
const LIST_TITLE_MAX = 24;
const LIST_BUTTON_TEXT = "Choose";

const cut = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

/**
 * Buttons as WhatsApp allows them: up to three reply buttons (titles of at most 20 characters), or
 * a list of up to ten rows when there are more. WhatsApp has no rows of buttons: rows are flattened.
 */
export function interactiveAction(buttons: Button[][], bodyText: string) {
  const all = buttons.flat();
  const body = { text: cut(bodyText, BODY_MAX) };
  if (all.length <= REPLY_BUTTONS_MAX) {
    return {
      type: "button",
      body,
      action: {
        buttons: all.map((b) => ({ type: "reply", reply: { id: b.data, title: cut(b.label, REPLY_TITLE_MAX) } })),
      },
    };
  }
  return {
    type: "list",
    body,
    action: {
      button: LIST_BUTTON_TEXT,
      sections: [
        {
          rows: all.slice(0, LIST_ROWS_MAX).map((b) => ({
            id: b.data,
            title: cut(b.label, LIST_TITLE_MAX),
            ...(b.label.length > LIST_TITLE_MAX ? { description: cut(b.label, 72) } : {}),
          })),
        },
      ],
    },
  };
}
