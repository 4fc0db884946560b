import { canSee, type Owner } from "../../../runtime/access.js";
import type { ConversationStore } from "./conversation-store.js";

/**
 * Who started a conversation: recorded in its own storage when its first message (or direct call)
 * is accepted, in the same turn as the state that message creates, and checked on every later
 * message, read and action (runtime/access.ts has the rule). Also the devices that owner may reach,
 * which bound the sub-conversations the loop starts (`task`, `sessions_spawn`). The conversation
 * index rows carry the owner id too, so a list shows a scoped principal only its own.
 */
const KEY = "owner";

/** A conversation's owner, cached in memory (the conversation is its only writer). */
export class ConversationOwner {
  private owner: Owner | null | undefined;

  constructor(private readonly store: ConversationStore) {}

  /** null: the conversation does not exist yet */
  get(): Owner | null {
    if (this.owner === undefined) this.owner = this.store.getValue<Owner>(KEY);
    return this.owner;
  }

  /**
   * Whether `by` may post to or read the conversation (`exists`: it has a state). A conversation
   * that does not exist yet is anyone's to start.
   */
  allows(by: Owner, exists: boolean): boolean {
    return !exists || canSee(by, this.get()?.id ?? null);
  }

  /**
   * `allows`, and then: a conversation that does not exist yet becomes `by`'s (the caller creates
   * its state in the same turn, so the two are written together); the owner posting again brings
   * the devices it may reach up to date (a key's pools may have changed).
   */
  admit(by: Owner, exists: boolean): boolean {
    if (!this.allows(by, exists)) return false;
    const owner = this.get();
    const fresh = !exists || (owner?.id === by.id && JSON.stringify(owner.reach) !== JSON.stringify(by.reach));
    if (fresh) {
      this.owner = { id: by.id, scoped: by.scoped, reach: by.reach };
      this.store.putValue(KEY, this.owner);
    }
    return true;
  }
}

/** The answer to a poster who may not see the conversation: the same as for one that does not exist. */
export const notFound = (conversationId: string) => ({
  ok: false as const,
  status: 404 as const,
  error: `no conversation '${conversationId}'`,
});
