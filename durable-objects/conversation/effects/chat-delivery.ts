import type { RunOutput } from "@edgeloop/protocol/run-output";
import { chatThreadFor } from "../../addresses.js";
import type { DurableObjectBindings } from "../../bindings.js";
import type { ConversationStore } from "../storage/conversation-store.js";
import type { DeliverChat } from "../storage/outbound-effects.js";

/** A run's progress goes to its chat at most this often: one push carries what came meanwhile. */
export const CHAT_PUSH_EVERY_MS = 1000;
/** Events per push; a longer backlog (after a restart) goes in several. */
const PUSH_EVENTS = 200;
const PUSHED_KEY = "chat:pushed_seq";

/**
 * A chat run's output, pushed to its thread: the one way a thread learns of a run's progress,
 * questions and reply (docs/architecture.md#chat-threads). A progress push waits
 * CHAT_PUSH_EVERY_MS, then sends every event stored since the last push; the reply's push goes at
 * once and carries what is left, so a short run costs the thread one call. Pushes are sent one
 * at a time, in order; the last sequence number pushed is kept, and the thread takes an event
 * once by its number, so a push sent again after a restart changes nothing.
 */
export class ChatPushes {
  private pushedSeq: number | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly env: Pick<DurableObjectBindings, "CHAT_THREAD">,
    private readonly store: ConversationStore,
  ) {}

  async push(conversationId: string, effect: DeliverChat): Promise<void> {
    if (!effect.reply) await new Promise((r) => setTimeout(r, CHAT_PUSH_EVERY_MS));
    const turn = this.queue.then(() => this.send(conversationId, effect));
    this.queue = turn.catch(() => {});
    await turn;
  }

  private async send(conversationId: string, effect: DeliverChat): Promise<void> {
    const thread = chatThreadFor(this.env, effect.thread);
    for (;;) {
      const after = this.pushedSeq ?? this.store.getValue<number>(PUSHED_KEY) ?? 0;
      const events = this.store.events(after, PUSH_EVENTS);
      const outputs: RunOutput[] = events.map((event) => ({ type: "event", conversation_id: conversationId, event }));
      const rest = events.length < PUSH_EVENTS;
      const withReply = rest && effect.reply !== null;
      if (withReply) outputs.push(effect.reply!);
      if (outputs.length === 0) return;
      await thread.runOutput(conversationId, outputs);
      const last = events.at(-1)?.seq;
      if (last !== undefined) {
        this.pushedSeq = last;
        this.store.putValue(PUSHED_KEY, last);
      }
      // Events stored while this push was out (a question, say) found this row pending and
      // queued none of their own: they go now, not with some later event.
      if (withReply) return;
    }
  }
}
