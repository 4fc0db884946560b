import type { ConversationEvent } from "@edgeloop/protocol";
import { log } from "../../../runtime/log.js";
import { randomHex } from "../../../runtime/random-token.js";
import { conversationFor } from "../../addresses.js";
import { approvalText, decidedLine } from "../chat-content/cards.js";
import { renderLive } from "../chat-content/live-reply.js";
import { queueToolPictures } from "./send-photo.js";
import type { ThreadContext } from "./thread-context.js";
import type { RunRow } from "./thread-store.js";

/** A run quiet this long is looked at less often (it may wait hours for an approval). */
const QUIET_AFTER_MS = 30_000;
const QUIET_POLL_MS = 3000;
/** Telegram's typing indicator lasts about 5 s; renewed a little before. */
const TYPING_EVERY_MS = 4500;

/**
 * Follow the conversations this thread has runs in: read their events since the last look, grow
 * each run's live message (tool lines, streamed text) by editing it no more often than the
 * platform allows, keep "typing…" up while tools run, and turn approval requests and questions
 * into cards. The final answer is not sent from here but from the outbox (deliverReply), which
 * edits the live message one last time. Returns when to look again; null when nothing is followed.
 */
export async function followRuns(ctx: ThreadContext, now: number): Promise<number | null> {
  const { store } = ctx;
  let next: number | null = null;
  for (const follow of store.follows()) {
    const stub = conversationFor(ctx.env, follow.conversation_id);
    let events: ConversationEvent[];
    try {
      events = await stub.getEvents(follow.after_seq, 500);
    } catch (e) {
      log("warn", "chat thread could not read events", { conversation_id: follow.conversation_id, error: String(e) });
      next = Math.min(next ?? Infinity, now + QUIET_POLL_MS);
      continue;
    }
    let current = follow.current;
    let afterSeq = follow.after_seq;
    const changed = new Map<string, RunRow>();
    const runOf = (messageId: string | null) => {
      if (!messageId) return null;
      const run = changed.get(messageId) ?? store.run(messageId);
      if (run) changed.set(messageId, run);
      return run;
    };
    for (const event of events) {
      afterSeq = event.seq;
      if (event.type === "message_start") current = event.message_id;
      const run = runOf(current);
      await applyEvent(ctx, follow.conversation_id, run, event);
      if (event.type === "conversation_end") current = null;
    }
    const quietSince = events.length > 0 ? now : follow.quiet_since;
    store.saveFollow(follow.conversation_id, afterSeq, current, quietSince);
    // Every run still going, changed or not: a long tool call keeps "typing…" up, and text held
    // back by the edit interval is shown at the next look even when no event came since.
    for (const run of store.openRuns(follow.conversation_id))
      if (!changed.has(run.message_id)) changed.set(run.message_id, run);
    for (const run of changed.values()) await showLive(ctx, run, now);
    store.dropFollowIfIdle(follow.conversation_id);
    if (store.follows().some((f) => f.conversation_id === follow.conversation_id)) {
      const every = now - quietSince > QUIET_AFTER_MS ? QUIET_POLL_MS : ctx.limits.minEditIntervalMs;
      next = Math.min(next ?? Infinity, now + every);
    }
  }
  return next;
}

async function applyEvent(
  ctx: ThreadContext,
  conversationId: string,
  run: RunRow | null,
  event: ConversationEvent,
): Promise<void> {
  const { store } = ctx;
  const now = Date.now();
  switch (event.type) {
    case "message_delta":
      if (run) run.text += event.delta;
      return;
    case "tool_execution_start":
      if (run) run.tools.push({ id: event.toolCallId, tool: event.toolName, agentId: run.agent_id, state: "running" });
      return;
    case "tool_execution_end":
      if (run)
        run.tools = run.tools.map((t) =>
          t.id === event.toolCallId ? { ...t, state: event.isError ? "error" : "ok" } : t,
        );
      queueToolPictures(ctx, conversationId, run?.agent_id ?? "its device", event, now);
      return;
    case "conversation_end":
      if (run) run.ended = true;
      return;
    case "approval_required": {
      const card_id = randomHex(5);
      const body = approvalText({ tool: event.toolName, agentId: run?.agent_id ?? "its device", args: event.args });
      if (
        store.addCard({
          card_id,
          conversation_id: conversationId,
          tool_call_id: event.toolCallId,
          kind: "approval",
          body,
          options: [],
        })
      )
        store.enqueue(`card:${card_id}`, { type: "card", card_id }, now);
      return;
    }
    case "question": {
      const view = await conversationFor(ctx.env, conversationId).getConversation();
      const args = view?.pending_tool_calls.find((c) => c.id === event.toolCallId)?.args;
      const options = Array.isArray(args?.options)
        ? args.options.filter((o): o is string => typeof o === "string")
        : [];
      const card_id = randomHex(5);
      const card = {
        card_id,
        conversation_id: conversationId,
        tool_call_id: event.toolCallId,
        kind: "question" as const,
      };
      if (store.addCard({ ...card, body: event.question, options }))
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

/** Send or edit the run's live message when it changed and the platform's edit interval has passed. */
async function showLive(ctx: ThreadContext, changedRun: RunRow, now: number): Promise<void> {
  const { store, client, identity, limits } = ctx;
  // Read again: the reply may have arrived while events were read; the final answer then owns the message.
  const stored = store.run(changedRun.message_id);
  if (!stored) return;
  const run = { ...changedRun, ended: changedRun.ended || stored.ended, live_id: stored.live_id };
  store.saveRun(run);
  if (run.ended || store.get<boolean>(`final:${run.message_id}`)) return;
  if (run.tools.some((t) => t.state === "running") && now - run.last_typing_at >= TYPING_EVERY_MS) {
    await client.typing(identity.chat).catch(() => {});
    run.last_typing_at = now;
  }
  const rendered = renderLive(run.tools, run.text, limits.maxMessageLength);
  const blocked = (store.get<number>("blocked_until") ?? 0) > now;
  // The platform's limit is per chat, so the interval is the thread's, whichever run edited last.
  const tooSoon = now - (store.get<number>("last_live_at") ?? 0) < limits.minEditIntervalMs;
  const worthShowing = run.text.trim() !== "" || run.tools.length > 0;
  if (rendered !== run.rendered && !blocked && !tooSoon && worthShowing && (run.live_id || limits.canEdit)) {
    const sent = run.live_id
      ? await client.edit(identity.chat, run.live_id, { markdown: rendered })
      : await client.send(identity.chat, { markdown: rendered });
    if (sent.ok) {
      run.live_id = sent.messageId || run.live_id;
      run.rendered = rendered;
      run.last_edit_at = now;
      store.put("last_live_at", now);
    } else if (sent.retryAfterMs !== undefined) store.put("blocked_until", now + sent.retryAfterMs);
  }
  store.saveRun(run);
}
