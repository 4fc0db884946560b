import { RESEND_CODE_MS } from "../../deployment/chat-access-rules.js";

/** Enough for a flood of strangers; past it the oldest entry goes (and that stranger asks again). */
const MAX_ENTRIES = 10_000;

/**
 * The isolate's short memory, per chat thread, of the unknown users the deployment object was
 * already asked about: for RESEND_CODE_MS after that, the same user's further messages in that
 * thread are refused here without asking it (it would only answer "already told" until then), so
 * a stranger's flood does not reach it per message (docs/architecture.md#chat-access). Forgetting
 * early is harmless: the deployment object still sends a code at most once per RESEND_CODE_MS.
 */
export class ToldStrangers {
  private readonly askedAt = new Map<string, number>();

  constructor(private readonly windowMs = RESEND_CODE_MS) {}

  recently(threadKey: string, userId: string, now = Date.now()): boolean {
    const key = `${threadKey}\n${userId}`;
    const at = this.askedAt.get(key);
    if (at !== undefined && now - at < this.windowMs) return true;
    this.askedAt.delete(key);
    return false;
  }

  remember(threadKey: string, userId: string, now = Date.now()): void {
    const key = `${threadKey}\n${userId}`;
    this.askedAt.delete(key);
    this.askedAt.set(key, now);
    if (this.askedAt.size > MAX_ENTRIES) this.askedAt.delete(this.askedAt.keys().next().value!);
  }
}

/** This isolate's memory. */
export const toldStrangers = new ToldStrangers();
