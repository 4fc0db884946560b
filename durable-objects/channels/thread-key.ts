import type { ChatAddress, PlatformName } from "./platform.js";
import type { ThreadIdentity } from "./thread/thread-store.js";

/** A chat thread's object name: `<platform>:<chat id>`, plus `:<thread id>` for a topic or thread. */
export function threadIdentity(platform: PlatformName, chat: ChatAddress): ThreadIdentity {
  const key = `${platform}:${chat.chatId}${chat.threadId ? `:${chat.threadId}` : ""}`;
  return { platform, chat: { chatId: chat.chatId, ...(chat.threadId ? { threadId: chat.threadId } : {}) }, key };
}
