import type { ConversationEvent } from "@edgeloop/protocol";
import type { RunOutput, RunReplyOutput } from "@edgeloop/protocol/run-output";
import { randomHex } from "../../../runtime/random-token.js";
import { approvalText, decidedLine } from "../chat-content/cards.js";
import { renderLive } from "../chat-content/live-reply.js";
import { queueToolPictures } from "./send-photo.js";
import type { ThreadContext } from "./thread-context.js";
import type { RunRow, ThreadStore } from "./thread-store.js";

/** Telegram's typing indicator lasts about 5 s; renewed a little before. */
const TYPING_EVERY_MS = 4500;
/** "typing…" is not kept up for a call that has been quiet this long (it may wait hours for an approval). */
const TYPING_FOR_MS = 10 * 60_000;

/**
 * A run's output as its conversation pushes it here (protocol/run-output.ts): its events, coalesced
 * by the conversation, and its reply. Events are taken once by their sequence number, so a push
 * sent again after a restart changes nothing; the reply is queued once by its message id. Events
 * are applied for runs this thread started (a hook's run that only replies here gets its reply,
 * not its progress). Nothing is sent here: the thread's outbox and live message do that after.
 */
export function applyRunOutput(ctx: ThreadContext, conversationId: string, outputs: RunOutput[], now: number): void {
  const { store } = ctx;
  const changed = new Map<string, RunRow>();
  const runOf = (messageId: string) => {
    const run = changed.get(messageId) ?? store.run(messageId);
    if (run) changed.set(messageId, run);
    return run;
  };
  let { after_seq: afterSeq, current } = store.seen(conversationId);
  for (const output of outputs) {
    if (output.type === "reply") {
      queueReply(store, output, now);
      const run = runOf(output.message_id);
      if (run) run.ended = true;
      continue;
    }
    const event = output.event as ConversationEvent;
    if (event.seq <= afterSeq) continue;
    afterSeq = event.seq;
    if (event.type === "message_start") {
      current = event.message_id;
      // A run of the thread's own conversation; handle-message names its device once it is accepted.
      if (store.get<string>("conversation_id") === conversationId)
        store.addRun(event.message_id, conversationId, null, now);
    }
    const run = current ? runOf(current) : null;
    if (run) run.last_event_at = now;
    applyEvent(ctx, conversationId, run, event, now);
    if (event.type === "conversation_end") current = null;
  }
  store.saveSeen(conversationId, afterSeq, current, now);
  for (const run of changed.values()) store.saveRun(run);
}

/** The run's reply, queued once by its message id; the live message stops growing. */
function queueReply(store: ThreadStore, reply: RunReplyOutput, now: number): void {
  const text =
    reply.reply ??
    (reply.status === "completed" ? "(no answer)" : `The run ended: ${reply.status} (${reply.stop_reason}).`);
  store.enqueue(`final:${reply.message_id}`, { type: "final", message_id: reply.message_id, text }, now);
}

function applyEvent(
  ctx: ThreadContext,
  conversationId: string,
  run: RunRow | null,
  event: ConversationEvent,
  now: number,
): void {
  const { store } = ctx;
  switch (event.type) {
    case "message_delta":
      if (run) run.text += event.delta;
      return;
    case "tool_execution_start":
      if (run) run.tools.push({ id: event.toolCallId, tool: event.toolName, agentId: run.agent_id, state: "running" });
      return;
    case "tool_execution_end":
      if (!run) return;
      run.tools = run.tools.map((t) =>
        t.id === event.toolCallId ? { ...t, state: event.isError ? "error" : "ok" } : t,
      );
      queueToolPictures(ctx, conversationId, run.agent_id, event, now);
      return;
    case "conversation_end":
      if (run) run.ended = true;
      return;
    case "approval_required": {
      if (!run) return;
      const card_id = randomHex(5);
      const body = approvalText({ tool: event.toolName, agentId: run.agent_id, args: event.args });
      const card = { card_id, conversation_id: conversationId, tool_call_id: event.toolCallId };
      if (store.addCard({ ...card, kind: "approval", body, options: [] }, now))
        store.enqueue(`card:${card_id}`, { type: "card", card_id }, now);
      return;
    }
    case "question": {
      if (!run) return;
      const card_id = randomHex(5);
      const card = { card_id, conversation_id: conversationId, tool_call_id: event.toolCallId };
      if (store.addCard({ ...card, kind: "question", body: event.question, options: event.options ?? [] }, now))
        store.enqueue(`card:${card_id}`, { type: "card", card_id }, now);
      return;
    }
    case "approval_decided": {
      // Decided somewhere else (the dashboard, the CLI, a rule, the deadline): the card says so.
      const card = store.cardFor(conversationId, event.toolCallId);
      const what = event.approved ? "✅ Approved" : "🚫 Denied";
      const who = event.decided_by === "person" ? "someone outside this chat" : event.decided_by;
      if (card && store.decideCard(card.card_id, decidedLine(what, who, event.at)))
        store.enqueue(`card_edit:${card.card_id}`, { type: "card_edit", card_id: card.card_id }, now);
      return;
    }
    default:
      return;
  }
}

/**
 * Grow each open run's live message (tool lines, streamed text) by editing it no more often than
 * the platform allows, and keep "typing…" up while its tools run. Only this thread's own clock
 * drives it: nothing is asked of the conversation. Returns when to look again (text held back by
 * the edit interval, "typing…" to renew), or null when nothing needs it.
 */
export async function showLiveRuns(ctx: ThreadContext, now: number): Promise<number | null> {
  let next: number | null = null;
  for (const run of ctx.store.openRuns()) {
    const again = await showLive(ctx, run, now);
    if (again !== null) next = Math.min(next ?? Infinity, again);
  }
  return next;
}

async function showLive(ctx: ThreadContext, run: RunRow, now: number): Promise<number | null> {
  const { store, client, identity, limits } = ctx;
  if (run.ended) return null;
  let next: number | null = null;
  const quiet = now - run.last_event_at > TYPING_FOR_MS;
  if (run.tools.some((t) => t.state === "running") && !quiet) {
    if (now - run.last_typing_at >= TYPING_EVERY_MS) {
      await client.typing(identity.chat).catch(() => {});
      run.last_typing_at = now;
    }
    next = run.last_typing_at + TYPING_EVERY_MS;
  }
  const rendered = renderLive(run.tools, run.text, limits.maxMessageLength);
  const blockedUntil = store.get<number>("blocked_until") ?? 0;
  // The platform's limit is per chat, so the interval is the thread's, whichever run edited last.
  const editableAt = Math.max(blockedUntil, (store.get<number>("last_live_at") ?? 0) + limits.minEditIntervalMs);
  const worthShowing = run.text.trim() !== "" || run.tools.length > 0;
  if (rendered !== run.rendered && worthShowing && (run.live_id || limits.canEdit)) {
    if (editableAt > now) next = Math.min(next ?? Infinity, editableAt);
    else {
      const sent = run.live_id
        ? await client.edit(identity.chat, run.live_id, { markdown: rendered })
        : await client.send(identity.chat, { markdown: rendered });
      if (sent.ok) {
        run.live_id = sent.messageId || run.live_id;
        run.rendered = rendered;
        run.last_edit_at = now;
        store.put("last_live_at", now);
      } else if (sent.retryAfterMs !== undefined) {
        store.put("blocked_until", now + sent.retryAfterMs);
        next = Math.min(next ?? Infinity, now + sent.retryAfterMs);
      }
    }
  }
  // Only what this function owns is written: events applied while the platform was called stay.
  store.saveLive(run);
  return store.run(run.message_id)?.ended ? null : next;
}
