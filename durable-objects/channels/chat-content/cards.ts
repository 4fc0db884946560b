import type { Button } from "../platform.js";

/**
 * Approval and question cards: the text and buttons a chat gets when a run needs a person, and
 * the short data each button carries back. Button data is `<card id>:<choice>`, about a dozen
 * bytes (Telegram allows 64): never the call's arguments, never a secret. Pure.
 */
/** The button pressed on an approval card (not durable-objects/approval-decision.ts's ApprovalChoice, the decision it makes). */
export type CardApproval = "once" | "always" | "deny";
const CHOICE_CODES: Record<CardApproval, string> = { once: "o", always: "a", deny: "d" };

export type ButtonPress = { cardId: string; approval: CardApproval } | { cardId: string; option: number };

export function parseButtonData(data: string): ButtonPress | null {
  const m = data.match(/^([a-z0-9]{6,16}):([oad]|\d{1,2})$/);
  if (!m) return null;
  const [, cardId, code] = m as unknown as [string, string, string];
  const approval = (Object.keys(CHOICE_CODES) as CardApproval[]).find((c) => CHOICE_CODES[c] === code);
  return approval ? { cardId, approval } : { cardId, option: Number(code) };
}

/** What an approval card shows of the call's arguments. */
const ARGS_SHOWN = 600;

/** Approve / Always / Deny: the approval rules' once, always and deny_always. */
export function approvalButtons(cardId: string): Button[][] {
  return [
    [
      { label: "Approve", data: `${cardId}:${CHOICE_CODES.once}`, style: "primary" },
      { label: "Always", data: `${cardId}:${CHOICE_CODES.always}` },
      { label: "Deny", data: `${cardId}:${CHOICE_CODES.deny}`, style: "danger" },
    ],
  ];
}

export function approvalText(call: { tool: string; agentId: string; args: unknown }): string {
  let args = JSON.stringify(call.args ?? {}, null, 1) ?? "{}";
  if (args.length > ARGS_SHOWN) args = `${args.slice(0, ARGS_SHOWN)}…`;
  return `Approval needed: \`${call.tool}\` on ${call.agentId}\n\`\`\`\n${args}\n\`\`\``;
}

/** At most this many options become buttons; a longer list is answered by typing. */
const MAX_OPTION_BUTTONS = 8;

export function questionCard(
  cardId: string,
  question: string,
  options: string[],
): { markdown: string; buttons: Button[][] } {
  const buttons =
    options.length > 0 && options.length <= MAX_OPTION_BUTTONS
      ? options.map((label, i) => [{ label: label.slice(0, 60), data: `${cardId}:${i}` }])
      : [];
  const hint = buttons.length ? "Tap an answer, or reply with text." : "Reply with your answer.";
  return { markdown: `${question}\n\n_${hint}_`, buttons };
}

/** The line a decided card ends with: who decided, and when (UTC, to the minute). */
export function decidedLine(what: string, who: string, at: number): string {
  const when = new Date(at).toISOString().slice(0, 16).replace("T", " ");
  return `${what} by ${who} at ${when} UTC`;
}

export const APPROVAL_OUTCOME: Record<CardApproval, string> = {
  once: "✅ Approved",
  always: "✅ Always approved",
  deny: "🚫 Denied",
};
