import { z } from "zod";

/** The most messages one page of a conversation's history holds. */
export const MAX_HISTORY_PAGE = 1000;
/** A page's size when the query names none: a short conversation is read whole in one. */
export const DEFAULT_HISTORY_PAGE = 200;

/**
 * `GET /v1/conversations/:id?from=&before=&limit=`: which page of the history the view carries.
 * Messages are numbered from 0, oldest first, and never renumbered. `from` pages forward (messages
 * `from`…`from + limit - 1`); otherwise the page ends before `before` (the latest page without it).
 * The answer says where its page starts (`messages_from`) and how many messages there are
 * (`messages_total`), so the next page is `from = messages_from + messages.length` and the one
 * before is `before = messages_from`.
 */
export const HistoryPageQuery = z.object({
  from: z.coerce.number().int().min(0).optional().describe("the number of the page's first message"),
  before: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe("the page ends before this message (default: the latest page); ignored with `from`"),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_HISTORY_PAGE)
    .default(DEFAULT_HISTORY_PAGE)
    .describe("messages per page"),
});
export type HistoryPageQuery = z.infer<typeof HistoryPageQuery>;

/** The page's range among `total` messages. */
export function historyPageRange(q: HistoryPageQuery, total: number): { from: number; to: number } {
  if (q.from !== undefined) {
    const from = Math.min(q.from, total);
    return { from, to: Math.min(total, from + q.limit) };
  }
  const to = Math.min(q.before ?? total, total);
  return { from: Math.max(0, to - q.limit), to };
}

/**
 * A conversation's view with its whole history, read page after page from the oldest: for
 * clients that want all of it (tests, the soak's audit). `getPage` fetches
 * `/v1/conversations/:id` with the query string it is given.
 */
export async function readWholeHistory<V extends { messages: unknown[]; messages_total?: number }>(
  getPage: (query: string) => Promise<V | null>,
): Promise<V | null> {
  const first = await getPage(`?from=0&limit=${MAX_HISTORY_PAGE}`);
  if (!first) return null;
  const messages = [...first.messages];
  const total = first.messages_total ?? messages.length;
  while (messages.length < total) {
    const page = await getPage(`?from=${messages.length}&limit=${MAX_HISTORY_PAGE}`);
    if (!page || page.messages.length === 0) break;
    messages.push(...page.messages);
  }
  return { ...first, messages, messages_from: 0 };
}
