import { log } from "../../../runtime/log.js";
import { approvalButtons, questionCard } from "../chat-content/cards.js";
import { renderLive } from "../chat-content/live-reply.js";
import { splitText } from "../chat-content/split-text.js";
import type { SendResult } from "../platform.js";
import { sendToolPicture } from "./send-photo.js";
import type { ThreadContext } from "./thread-context.js";
import type { SendOp, SendRow } from "./thread-store.js";

/** A platform call still refused after this many tries (about five hours of backoff) is dropped. */
const GIVE_UP_AFTER_ATTEMPTS = 40;

export function sendBackoffMs(attempts: number): number {
  return Math.min(1000 * 2 ** attempts, 10 * 60_000);
}

/**
 * Perform the thread's due platform calls in order. A call the platform refuses with 429 or 5xx
 * waits (Telegram's `retry_after` when given) and holds back the calls after it, so the chat
 * sees them in order; a final answer in several parts records each part sent, so a restart
 * never sends a part twice. Returns when something is due again, or null.
 */
export async function drainOutbox(ctx: ThreadContext, now: number): Promise<number | null> {
  const { store } = ctx;
  for (const row of store.dueSends(now)) {
    if ((store.get<number>("blocked_until") ?? 0) > Date.now()) break;
    const sent = await perform(ctx, row);
    if (sent.ok) {
      store.finishSend(row.id);
      continue;
    }
    if (!sent.retryable || row.attempts + 1 >= GIVE_UP_AFTER_ATTEMPTS) {
      log("warn", "chat send given up", { thread: ctx.identity.key, op: row.op.type, error: sent.error });
      store.finishSend(row.id);
      continue;
    }
    const wait = sent.retryAfterMs ?? sendBackoffMs(row.attempts);
    store.retrySend(row.id, Date.now() + wait);
    store.put("blocked_until", Date.now() + wait);
    log("info", "chat send will be retried", {
      thread: ctx.identity.key,
      op: row.op.type,
      wait_ms: wait,
      error: sent.error,
    });
    break;
  }
  const next = store.nextSendAt();
  // Calls held back behind a refused one wait with it, not in a loop of alarms.
  return next === null ? null : Math.max(next, store.get<number>("blocked_until") ?? 0);
}

async function perform(ctx: ThreadContext, row: SendRow): Promise<SendResult> {
  const { store, client, identity } = ctx;
  const op: SendOp = row.op;
  switch (op.type) {
    case "notice": {
      const only = op.only_for;
      const onlyFor = only && { userId: only.user_id, ...(only.ack_token ? { ackToken: only.ack_token } : {}) };
      return client.send(identity.chat, { markdown: op.text, ...(onlyFor ? { onlyFor } : {}) });
    }
    case "card": {
      const card = store.card(op.card_id);
      if (!card || card.message_id) return { ok: true, messageId: card?.message_id ?? "" };
      const message = card.decided
        ? { markdown: `${card.body}\n\n${card.decided}` }
        : card.kind === "approval"
          ? { markdown: card.body, buttons: approvalButtons(card.card_id) }
          : questionCard(card.card_id, card.body, card.options);
      const sent = await client.send(identity.chat, message);
      if (sent.ok) store.setCardMessage(card.card_id, sent.messageId);
      return sent;
    }
    case "card_edit": {
      const card = store.card(op.card_id);
      // Never shown (decided before its send went out): the send finds it decided and shows the outcome.
      if (!card?.message_id || !card.decided) return { ok: true, messageId: "" };
      return client.edit(identity.chat, card.message_id, { markdown: `${card.body}\n\n${card.decided}` });
    }
    case "final":
      return sendFinal(ctx, row, op);
    case "photo":
      return sendToolPicture(ctx, op);
  }
}

/** The answer, in parts of the platform's length; the first replaces the live message when there is one. */
async function sendFinal(
  ctx: ThreadContext,
  row: SendRow,
  op: Extract<SendOp, { type: "final" }>,
): Promise<SendResult> {
  const { store, client, identity, limits } = ctx;
  const run = store.run(op.message_id);
  const tools = run?.tools.map((t) => (t.state === "running" ? { ...t, state: "ok" as const } : t)) ?? [];
  const whole = renderLive(tools, op.text, Number.MAX_SAFE_INTEGER);
  const parts = splitText(whole, limits.maxMessageLength);
  let last: SendResult = { ok: true, messageId: run?.live_id ?? "" };
  for (let i = row.progress; i < parts.length; i++) {
    const message = { markdown: parts[i]! };
    const replacesLive = i === 0 && run?.live_id && limits.canEdit;
    last = replacesLive
      ? await client.edit(identity.chat, run.live_id!, message)
      : await client.send(identity.chat, message);
    // The live message cannot be edited (deleted in the chat, too old): the answer goes as a new one.
    if (replacesLive && !last.ok && !last.retryable) last = await client.send(identity.chat, message);
    if (!last.ok) return last;
    store.sendProgress(row.id, i + 1);
  }
  return last;
}
