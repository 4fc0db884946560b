import type { ReplyTarget } from "@edgeloop/protocol/run-output";
import { chatThreadFor } from "../../durable-objects/addresses.js";
import type { DurableObjectBindings } from "../../durable-objects/bindings.js";
import type { ThreadIdentity } from "../../durable-objects/channels/thread/thread-store.js";
import { threadIdentity } from "../../durable-objects/channels/thread-key.js";
import type { Hook } from "./hook-settings.js";

/** What the chat is shown of the message that started the run: its first lines, not the whole payload. */
const ANNOUNCE_CHARS = 300;

/**
 * A hook whose `reply` names a chat: the conversation's outbox delivers the run's reply to that chat
 * thread's object, which sends it through its own outbox (retried on 429/5xx, sent once across
 * restarts: docs/architecture.md#chat-threads) — the same path as a reply to a chat message.
 */
export function hookReplyThread(hook: Hook): { thread: ThreadIdentity; replyTarget: ReplyTarget } | null {
  if (!hook.reply) return null;
  const thread = threadIdentity(hook.reply.platform, {
    chatId: hook.reply.chat,
    ...(hook.reply.thread ? { threadId: hook.reply.thread } : {}),
  });
  return { thread, replyTarget: { kind: "chat", thread: thread.key } };
}

/**
 * Tell the chat what started the run, before its reply arrives; this also gives the thread object
 * its address when no one has written there yet. Keyed by the delivery, so a redelivery posts nothing new.
 */
export async function announceHookRun(
  env: Pick<DurableObjectBindings, "CHAT_THREAD">,
  thread: ThreadIdentity,
  hookName: string,
  deliveryId: string,
  text: string,
): Promise<void> {
  const shown = text.length > ANNOUNCE_CHARS ? `${text.slice(0, ANNOUNCE_CHARS)}…` : text;
  await chatThreadFor(env, thread.key).notify(thread, `hook:${hookName}:${deliveryId}`, `🔔 ${hookName}: ${shown}`);
}
