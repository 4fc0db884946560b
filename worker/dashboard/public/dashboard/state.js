// @ts-check
/**
 * What the dashboard remembers between refreshes: the conversation the timeline follows and its
 * stream, the timeline's tool calls, the last lists the API returned, and the message form's
 * targets. One object, shared by the panels' modules.
 */

/**
 * A tool call in the timeline. `start` is when it was dispatched (its approval decision, if it
 * needed one); `waitedMs` how long it waited for that decision.
 * @typedef {{ start: number, bar: HTMLElement, meta: HTMLElement, item?: HTMLElement, duration?: number, waitedMs?: number }} TimelineCall
 */

export const state = {
  /** @type {string | null} the conversation the timeline shows */
  selected: null,
  /** @type {EventSource | null} */
  source: null,
  /** @type {Record<string, TimelineCall>} the timeline's tool calls, by tool call id */
  calls: {},
  /** the slowest call so far: the timeline's bars are scaled to it */
  maxMs: 1,
  /** @type {string | null} the approvals shown, as one string: unchanged, the panel is left alone (focus, typed reasons) */
  approvalsKey: null,
  /** @type {HTMLElement | null} the model's streaming turn in the timeline */
  llm: null,
  /** @type {HTMLElement | null} */
  llmText: null,
  /** @type {any[]} the last conversations listed */
  conversations: [],
  /** @type {any[]} the devices the message form offers */
  chatDevices: [],
  /** @type {any[]} the pools the message form offers */
  chatPools: [],
  /** @type {Record<string, Record<string, unknown>>} the fleet each conversation the form started over one was sent to */
  chatFleets: {},
  /** The person picked the message form's target themselves: a conversation the page opens by itself keeps it. */
  targetChosen: false,
};

/**
 * What one panel asks of another without importing it (the timeline imports the panels, so the
 * panels reach the timeline through here). main.js fills these in.
 */
export const actions = {
  /** @type {(conversationId: string, auto?: boolean) => void} follow a conversation in the timeline; `auto` when the page, not the person, picked it */
  select: () => {},
  /** @type {() => void} */
  refreshApprovals: () => {},
  /** @type {() => void} */
  refreshConversations: () => {},
};
