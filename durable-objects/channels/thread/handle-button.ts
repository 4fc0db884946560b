import { conversationFor, deploymentOf } from "../../addresses.js";
import { decideApproval } from "../../approval-decision.js";
import { grantInForce } from "../../deployment/in-force.js";
import { channelSettings } from "../channel-settings.js";
import { APPROVAL_OUTCOME, decidedLine, parseButtonData } from "../chat-content/cards.js";
import type { InboundEvent } from "../platform.js";
import { countRefusal, type ThreadContext } from "./thread-context.js";

type ButtonEvent = Extract<InboundEvent, { kind: "button" }>;

/**
 * A press on a card's button. Approvals are for the approvers listed apart from grants
 * (CHANNEL_APPROVERS); a question's options for anyone granted in the chat. Anyone else is
 * refused, told so, audited and counted. The card is claimed for one decision before anything is
 * applied, so a second press (or a platform retry) is answered with who decided, never applied twice.
 */
export async function handleButton(ctx: ThreadContext, event: ButtonEvent): Promise<void> {
  const { env, store, identity, client } = ctx;
  const press = parseButtonData(event.data);
  const card = press ? store.card(press.cardId) : null;
  if (!press || !card)
    return void (await client.answerButton(event, "This button is no longer valid.").catch(() => {}));
  if (card.decided) return void (await client.answerButton(event, `Already decided: ${card.decided}`).catch(() => {}));
  const allowed =
    card.kind === "approval"
      ? isApprover(ctx, event.user.id)
      : (await grantInForce(env, identity.platform, event.user.id, event.chat.chatId)) !== null;
  if (!allowed) {
    const action = card.kind === "approval" ? "approve refused" : "answer refused";
    await deploymentOf(env).auditChat({
      platform: identity.platform,
      user_id: event.user.id,
      user_name: event.user.name,
      chat_id: event.chat.chatId,
      action,
      detail: `${card.kind} card for call ${card.tool_call_id} in ${card.conversation_id}`,
    });
    await countRefusal(env, identity.platform, action);
    const why = card.kind === "approval" ? "You may not approve tool calls here." : "You may not answer here.";
    return void (await client.answerButton(event, why).catch(() => {}));
  }
  const now = Date.now();
  let line: string;
  if ("approval" in press) line = decidedLine(APPROVAL_OUTCOME[press.approval], event.user.name, now);
  else {
    const option = card.options[press.option];
    if (option === undefined) return void (await client.answerButton(event, "No such option.").catch(() => {}));
    line = decidedLine(`💬 “${option}”`, event.user.name, now);
  }
  // Claimed before any await: a second press arriving meanwhile finds it decided.
  if (!store.decideCard(card.card_id, line))
    return void (await client.answerButton(event, "Already decided.").catch(() => {}));
  let toast = "Done.";
  if ("approval" in press) {
    // Approve: this call; Always: a rule allowing this tool on this device; Deny: a rule denying it.
    const scope = press.approval === "always" ? "always" : press.approval === "deny" ? "deny_always" : "once";
    const choice = { approve: press.approval !== "deny", scope, expiresAt: null } as const;
    const res = await decideApproval(
      env,
      card.conversation_id,
      card.tool_call_id,
      choice,
      `chat:${identity.key}`,
      `chat:${identity.key}/${event.user.id}`,
    );
    if (!res.ok) {
      store.overwriteDecision(card.card_id, "No longer waiting for a decision.");
      toast = "That call is no longer waiting.";
    } else toast = res.approved ? "Approved." : "Denied.";
  } else {
    const text = card.options[press.option]!;
    const res = await conversationFor(env, card.conversation_id).answer(card.tool_call_id, { text });
    // A device that is offline keeps its question open: the card is open again, to be pressed later.
    if (res.unavailable) store.reopenCard(card.card_id);
    else if (!res.applied) store.overwriteDecision(card.card_id, "No longer waiting for an answer.");
    toast = res.applied
      ? "Answered."
      : res.unavailable
        ? "The device is offline; try again when it is back."
        : "That question is no longer waiting.";
  }
  store.enqueue(`card_edit:${card.card_id}`, { type: "card_edit", card_id: card.card_id }, now);
  await client.answerButton(event, toast).catch(() => {});
}

export function isApprover(ctx: ThreadContext, userId: string): boolean {
  const settings = channelSettings(ctx.env);
  return settings.ok && settings.value.CHANNEL_APPROVERS.has(`${ctx.identity.platform}:${userId}`);
}
